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
// program's name. A rejection's message is a substring of the kernel's
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
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: second expectation before a function: %w", base, lineNo, ErrSyntax)
			}
			e, err := parseExpectation(strings.TrimSpace(rest))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", base, lineNo, err)
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

// parseExpectation parses the text after "// vercheck:".
func parseExpectation(s string) (Expectation, error) {
	verb, arg, _ := strings.Cut(s, " ")
	arg = strings.TrimSpace(arg)
	switch verb {
	case "accept":
		if arg != "" {
			return Expectation{}, fmt.Errorf("accept takes no argument, got %q: %w", arg, ErrSyntax)
		}
		return Expectation{Accept: true}, nil
	case "reject":
		msg, err := strconv.Unquote(arg)
		if err != nil {
			return Expectation{}, fmt.Errorf("reject needs a quoted message, got %q: %w", arg, ErrSyntax)
		}
		if msg == "" {
			return Expectation{}, fmt.Errorf("reject with an empty message: %w", ErrSyntax)
		}
		return Expectation{Msg: msg}, nil
	default:
		return Expectation{}, fmt.Errorf("unknown verdict %q: %w", verb, ErrSyntax)
	}
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
