// Package progtest reads the test programs in testdata/progs: the
// expectations written next to each program in its C source, and the
// kernel's recorded verdicts in kernel-golden.json.
//
// An expectation is a line comment placed before a program's definition:
//
//	// vercheck: accept
//	// vercheck: reject "R0 invalid mem access 'map_value_or_null'"
//
// It applies to the next function defined after it, whose name is the
// program's name. A verdict that depends on a 6.18.y stable fix (package
// stablefix) is the verdict with the fix, followed by the verdict of a
// kernel without it:
//
//	// vercheck: reject "R9 offset is outside of the packet"
//	// vercheck: accept without pkt-range-arith
//
// A variant may name several fixes, comma-separated: its verdict is that of
// a kernel lacking all of them (a fix that makes another one's rule moot).
//
// A rejection's message is a substring of the kernel's
// decisive log line (see [kernel.DecisiveLine]). Adding a program therefore
// needs no Go change.
package progtest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vercheck/vercheck/stablefix"
)

// ErrSyntax is wrapped by errors about malformed expectation comments.
var ErrSyntax = errors.New("bad vercheck expectation")

// Expectation is the verdict a C source file promises for one program.
type Expectation struct {
	// File is the C source's base name, such as "map_value_oob.c".
	File string
	// Program is the program's (function's) name.
	Program string
	// Accept is true for "vercheck: accept".
	Accept bool
	// Msg is the expected substring of the decisive log line of a rejection;
	// empty for an acceptance.
	Msg string
	// Variants are the verdicts of kernels that lack a stable fix, where
	// they differ from the one above (which is the verdict with every fix).
	Variants []Variant
}

// Variant is the verdict of a kernel that lacks some stable fixes.
type Variant struct {
	// Without are the fixes the kernel lacks (all of them).
	Without stablefix.Set
	// Accept and Msg are the verdict, as in [Expectation].
	Accept bool
	Msg    string
}

// hiddenSymbolMsg is the kernel's refusal of a ksym whose address
// kallsyms does not give (check_pseudo_btf_id); its verdict depends on the
// kernel's configuration (data symbols need CONFIG_KALLSYMS_ALL), not on
// the verifier.
var hiddenSymbolMsg = regexp.MustCompile(`failed to find the address for kernel symbol '([^']+)'`)

// HiddenKernelSymbol returns the kernel symbol whose missing kallsyms
// address the expected rejection is about, if it is one: a kernel whose
// kallsyms lists that symbol gives another verdict, and tests skip the
// program there.
func (e Expectation) HiddenKernelSymbol() (string, bool) {
	m := hiddenSymbolMsg.FindStringSubmatch(e.Msg)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// On returns the expectation for a kernel that lacks the fixes missing:
// the first variant whose fixes are all missing, else e itself.
func (e Expectation) On(missing stablefix.Set) Expectation {
	for _, v := range e.Variants {
		if v.Without.Minus(missing).Empty() {
			e.Accept, e.Msg = v.Accept, v.Msg
			break
		}
	}
	e.Variants = nil
	return e
}

// Object returns the base name of the object file built from e.File.
func (e Expectation) Object() string {
	return strings.TrimSuffix(e.File, filepath.Ext(e.File)) + ".o"
}

// Matches reports whether a verdict (accepted or not, with the decisive log
// line errMsg) satisfies e.
func (e Expectation) Matches(accepted bool, errMsg string) bool {
	if e.Accept {
		return accepted
	}
	return !accepted && strings.Contains(errMsg, e.Msg)
}

// expectMarker introduces an expectation comment.
const expectMarker = "// vercheck:"

var (
	// secRE and attrRE strip section annotations and attributes so that the
	// function's own name is the last identifier before its parameter list.
	secRE  = regexp.MustCompile(`SEC\("[^"]*"\)`)
	attrRE = regexp.MustCompile(`__attribute__\(\(.*?\)\)`)
	// funcRE finds "name(" on a definition line.
	funcRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
)

// Load reads the expectations of every *.c file in dir, sorted by file and
// program. It fails on a malformed comment or one with no function after it.
func Load(dir string) ([]Expectation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var all []Expectation
	for _, f := range files {
		exps, err := LoadFile(f)
		if err != nil {
			return nil, err
		}
		all = append(all, exps...)
	}
	slices.SortFunc(all, func(a, b Expectation) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return strings.Compare(a.Program, b.Program)
	})
	return all, nil
}

// LoadFile reads the expectations of one C source file.
func LoadFile(path string) ([]Expectation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("expectations: %w", err)
	}
	defer f.Close()

	var (
		out     []Expectation
		pending *Expectation
		pendAt  int
		lineNo  int
	)
	base := filepath.Base(path)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, expectMarker); ok {
			e, without, err := parseExpectation(strings.TrimSpace(rest))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", base, lineNo, err)
			}
			switch {
			case without != nil && pending == nil:
				return nil, fmt.Errorf("%s:%d: a verdict without a fix must follow the verdict with it: %w", base, lineNo, ErrSyntax)
			case without != nil:
				pending.Variants = append(pending.Variants, Variant{Without: *without, Accept: e.Accept, Msg: e.Msg})
				continue
			case pending != nil:
				return nil, fmt.Errorf("%s:%d: second expectation before a function: %w", base, lineNo, ErrSyntax)
			}
			e.File = base
			pending, pendAt = &e, lineNo
			continue
		}
		if pending == nil {
			continue
		}
		if name, ok := definedFunc(line); ok {
			pending.Program = name
			out = append(out, *pending)
			pending = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("expectations: read %s: %w", base, err)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: no function after expectation: %w", base, pendAt, ErrSyntax)
	}
	return out, nil
}

// withoutWord introduces the fixes a variant verdict is for.
const withoutWord = "without "

// parseExpectation parses the text after "// vercheck:": a verdict and,
// for a variant, the fixes the kernel lacks (nil otherwise).
func parseExpectation(s string) (Expectation, *stablefix.Set, error) {
	verb, arg, _ := strings.Cut(s, " ")
	arg = strings.TrimSpace(arg)
	var e Expectation
	switch verb {
	case "accept":
		e.Accept = true
	case "reject":
		quoted, err := strconv.QuotedPrefix(arg)
		if err != nil {
			return Expectation{}, nil, fmt.Errorf("reject needs a quoted message, got %q: %w", arg, ErrSyntax)
		}
		e.Msg, _ = strconv.Unquote(quoted)
		if e.Msg == "" {
			return Expectation{}, nil, fmt.Errorf("reject with an empty message: %w", ErrSyntax)
		}
		arg = strings.TrimSpace(arg[len(quoted):])
	default:
		return Expectation{}, nil, fmt.Errorf("unknown verdict %q: %w", verb, ErrSyntax)
	}
	if arg == "" {
		return e, nil, nil
	}
	name, ok := strings.CutPrefix(arg, withoutWord)
	if !ok {
		return Expectation{}, nil, fmt.Errorf("unexpected %q after the verdict (want %q and a stable fix): %w", arg, withoutWord, ErrSyntax)
	}
	name = strings.TrimSpace(name)
	set, err := stablefix.Parse(name)
	if err != nil || set.Empty() || set == stablefix.Everything {
		return Expectation{}, nil, fmt.Errorf("%q names no stable fixes (%v): %w", name, err, ErrSyntax)
	}
	return e, &set, nil
}

// definedFunc returns the name of the function whose definition starts on
// line, if it does. Comments, blank lines, preprocessor lines and lines that
// only hold a section annotation are not definitions.
func definedFunc(line string) (string, bool) {
	if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "/*") ||
		strings.HasPrefix(line, "*") || strings.HasPrefix(line, "#") {
		return "", false
	}
	line = secRE.ReplaceAllString(line, "")
	line = attrRE.ReplaceAllString(line, "")
	m := funcRE.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1], true
}
