// Package expect reads the verdicts a BPF object declares for its own
// programs and checks vercheck's results against them.
//
// The kernel's selftests (tools/testing/selftests/bpf/progs, the
// verifier_*.c files and many more) state what the verifier must decide
// for each program with BTF declaration tags on the program's function,
// which their test_loader.c reads: __success, __failure, __msg("...")
// (messages the log must contain, in order, with {{regex}} parts),
// __log_level(N), __flag(BPF_F_...), __arch_x86_64... This package reads
// the same tags the same way, for the privileged mode (vercheck checks as
// root does), so that such an object carries its own oracle: on a machine
// whose kernel refuses to load a program type (fentry, LSM, struct_ops
// without the right configuration), the tags still say what the verifier
// decides. Tags describe the kernel their tree was written for: a
// program checked against another release may disagree where the
// verifier changed.
package expect

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/loader"
)

// The tags test_loader.c reads (tools/testing/selftests/bpf/progs/bpf_misc.h
// writes them).
const (
	tagFailure        = "comment:test_expect_failure"
	tagSuccess        = "comment:test_expect_success"
	tagMsgPrefix      = "comment:test_expect_msg="
	tagRegexPrefix    = "comment:test_expect_regex="
	tagLogLevelPrefix = "comment:test_log_level="
	tagFlagsPrefix    = "comment:test_prog_flags="
	tagArchPrefix     = "comment:test_arch="
	tagAuxiliary      = "comment:test_auxiliary"
	tagBTFPathPrefix  = "comment:test_btf_path="
	tagLoadModePrefix = "comment:load_mode="
	// tagPrefix starts every tag; the unprivileged ones (_unpriv) and
	// those about translated or JITed code are read but do not apply.
	tagPrefix = "comment:test_"
)

// arch is the architecture vercheck checks for (pt_regs layouts, syscall
// stubs): x86_64, as test_loader's get_current_arch names it.
const arch = "X86_64"

// Expectation is what a program's tags say the privileged verifier decides.
type Expectation struct {
	// Failure is true when the program must be rejected, false when it
	// must be accepted.
	Failure bool
	// Messages must appear in the verifier log in this order, each after
	// the previous one's match.
	Messages []Message
	// LogLevel is the log level the messages are matched at (at least
	// 1 when there are messages, as a log holds nothing at level 0).
	LogLevel int
	// ProgFlags are the load flags the test loads the program with.
	ProgFlags uint32
	// Skip says why the expectation does not apply here (another
	// architecture, a test's own BTF, a check of JITed code only); empty
	// when it does.
	Skip string
}

// Message is one expected log message: a substring, or a regular
// expression where the tag has {{...}} parts.
type Message struct {
	// Text is the message as the tag writes it.
	Text string
	re   *regexp.Regexp
}

// Of reads the expectation of prog from its function's declaration tags.
// ok is false when the function has no test tags, or only an auxiliary or
// unprivileged role; err reports a tag that cannot be read.
func Of(prog *loader.Program) (exp *Expectation, ok bool, err error) {
	if len(prog.Instructions) == 0 {
		return nil, false, nil
	}
	fn := btf.FuncMetadata(&prog.Instructions[0])
	if fn == nil {
		return nil, false, nil
	}
	return parse(fn.Tags)
}

// parse reads tags as test_loader's parse_test_spec does for the
// privileged mode.
func parse(tags []string) (*Expectation, bool, error) {
	tags, counted := inSourceOrder(tags)
	msgText := counterless
	if counted {
		msgText = func(s string) string { return s }
	}
	e := &Expectation{}
	priv, any := false, false
	var archs []string
	for _, t := range tags {
		if !strings.HasPrefix(t, tagPrefix) && !strings.HasPrefix(t, tagLoadModePrefix) {
			continue
		}
		any = true
		switch {
		case t == tagFailure:
			e.Failure, priv = true, true
		case t == tagSuccess:
			e.Failure, priv = false, true
		case t == tagAuxiliary:
			return nil, false, nil
		case strings.HasPrefix(t, tagMsgPrefix):
			m, err := newMessage(msgText(strings.TrimPrefix(t, tagMsgPrefix)))
			if err != nil {
				return nil, false, err
			}
			e.Messages, priv = append(e.Messages, m), true
		case strings.HasPrefix(t, tagRegexPrefix):
			re, err := regexp.Compile("(?m)" + msgText(strings.TrimPrefix(t, tagRegexPrefix)))
			if err != nil {
				return nil, false, fmt.Errorf("expect: %s: %w", t, err)
			}
			e.Messages, priv = append(e.Messages, Message{Text: re.String(), re: re}), true
		case strings.HasPrefix(t, tagLogLevelPrefix):
			n, err := strconv.ParseInt(strings.TrimPrefix(t, tagLogLevelPrefix), 0, 32)
			if err != nil {
				return nil, false, fmt.Errorf("expect: %s: %w", t, err)
			}
			e.LogLevel = int(n)
		case strings.HasPrefix(t, tagFlagsPrefix):
			if err := e.applyFlag(strings.TrimPrefix(t, tagFlagsPrefix)); err != nil {
				return nil, false, fmt.Errorf("expect: %s: %w", t, err)
			}
		case strings.HasPrefix(t, tagArchPrefix):
			archs = append(archs, strings.TrimPrefix(t, tagArchPrefix))
		case strings.HasPrefix(t, tagBTFPathPrefix):
			e.Skip = "the test loads its own BTF"
		case strings.HasPrefix(t, tagLoadModePrefix):
			e.Skip = "the test depends on the JIT"
		case strings.HasSuffix(t, "_unpriv") || strings.Contains(t, "_unpriv="):
			// Unprivileged mode: vercheck checks as root.
		}
	}
	if !any {
		return nil, false, nil
	}
	if !priv && hasUnpriv(tags) {
		return nil, false, nil
	}
	if len(archs) > 0 && !slices.Contains(archs, arch) {
		e.Skip = "the test is for " + strings.Join(archs, ", ")
	}
	if len(e.Messages) > 0 && e.LogLevel&3 == 0 {
		e.LogLevel |= 1
	}
	return e, true, nil
}

// hasUnpriv reports whether some tag is about the unprivileged mode: a test
// with such tags and no privileged result tag has no privileged mode
// (test_loader's mode_mask).
func hasUnpriv(tags []string) bool {
	for _, t := range tags {
		if strings.Contains(t, "_unpriv") {
			return true
		}
	}
	return false
}

// inSourceOrder strips the "N:" that newer bpf_misc.h files (of the 6.18
// era on) put after "comment:" (__COUNTER__, as compilers do not keep the
// order of BTF declaration tags) and orders the tags by it, as
// test_loader's collect_decl_tags does with strverscmp; the result reads
// as the older tags without a counter (whose messages carry it instead,
// counterless). Tags without one keep their relative order, after those
// with one. counted says whether some tag had the counter.
func inSourceOrder(tags []string) (sorted []string, counted bool) {
	type numbered struct {
		n   int
		tag string
	}
	out := make([]numbered, len(tags))
	for i, t := range tags {
		out[i] = numbered{n: -1, tag: t}
		rest, ok := strings.CutPrefix(t, "comment:")
		if !ok {
			continue
		}
		num, after, ok := strings.Cut(rest, ":")
		if n, err := strconv.Atoi(num); ok && err == nil && n >= 0 {
			out[i] = numbered{n: n, tag: "comment:" + after}
			counted = true
		}
	}
	slices.SortStableFunc(out, func(a, b numbered) int {
		if (a.n < 0) != (b.n < 0) {
			return b.n - a.n // a counter sorts first
		}
		return a.n - b.n
	})
	sorted = make([]string, len(out))
	for i, o := range out {
		sorted[i] = o.tag
	}
	return sorted, counted
}

// counterless drops the "N=" bpf_misc.h puts before a message so that
// tags stay distinct (__COUNTER__), when it is there.
func counterless(s string) string {
	if i := strings.IndexByte(s, '='); i > 0 {
		if _, err := strconv.Atoi(s[:i]); err == nil {
			return s[i+1:]
		}
	}
	return s
}

// progFlagNames are the load flags __flag names, as test_loader reads them.
var progFlagNames = map[string]uint32{
	"BPF_F_STRICT_ALIGNMENT":    1 << 0,
	"BPF_F_ANY_ALIGNMENT":       1 << 1,
	"BPF_F_TEST_RND_HI32":       1 << 2,
	"BPF_F_TEST_STATE_FREQ":     1 << 3,
	"BPF_F_SLEEPABLE":           1 << 4,
	"BPF_F_XDP_HAS_FRAGS":       1 << 5,
	"BPF_F_TEST_REG_INVARIANTS": 1 << 7,
}

// applyFlag sets (or, after '!', clears) one load flag, by name or number.
func (e *Expectation) applyFlag(s string) error {
	clear := strings.HasPrefix(s, "!")
	s = strings.TrimPrefix(s, "!")
	f, ok := progFlagNames[s]
	if !ok {
		n, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return err
		}
		f = uint32(n)
	}
	if clear {
		e.ProgFlags &^= f
	} else {
		e.ProgFlags |= f
	}
	return nil
}

// newMessage reads an expected message: {{...}} parts are regular
// expressions, the rest literal text (test_loader's compile_regex; its
// POSIX extended syntax reads the same in Go's, and REG_NEWLINE is (?m)
// with '.' not matching a newline, Go's default).
func newMessage(text string) (Message, error) {
	if !strings.Contains(text, "{{") {
		return Message{Text: text}, nil
	}
	var b strings.Builder
	b.WriteString("(?m)")
	rest := text
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return Message{}, fmt.Errorf("expect: message %q: '{{' without '}}'", text)
		}
		b.WriteString(rest[i+2 : i+2+j])
		rest = rest[i+2+j+2:]
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return Message{}, fmt.Errorf("expect: message %q: %w", text, err)
	}
	return Message{Text: text, re: re}, nil
}

// find returns where m matches in log, and where its match ends; ok is
// false when it does not.
func (m Message) find(log string) (start, end int, ok bool) {
	if m.re == nil {
		i := strings.Index(log, m.Text)
		if i < 0 {
			return 0, 0, false
		}
		return i, i + len(m.Text), true
	}
	loc := m.re.FindStringIndex(log)
	if loc == nil {
		return 0, 0, false
	}
	return loc[0], loc[1], true
}

// Missing returns the messages the log lacks, matched as test_loader's
// validate_msgs does: in order, each searched after the end of the
// previous match. After the first miss, the rest are searched from there.
func (e *Expectation) Missing(log string) []string {
	var missing []string
	for _, m := range e.Messages {
		_, end, ok := m.find(log)
		if !ok {
			missing = append(missing, m.Text)
			continue
		}
		log = log[end:]
	}
	return missing
}

// Check compares a verification with the expectation: the verdict (an
// accept where the tags say failure, or the reverse) and the messages the
// log (of level LogLevel) lacks. It returns nothing when both hold.
func (e *Expectation) Check(accepted bool, log string) []string {
	var problems []string
	switch {
	case e.Failure && accepted:
		problems = append(problems, "accepted, the tags say __failure")
	case !e.Failure && !accepted:
		problems = append(problems, "rejected, the tags say __success")
	}
	for _, m := range e.Missing(log) {
		problems = append(problems, fmt.Sprintf("log lacks __msg(%q)", m))
	}
	return problems
}
