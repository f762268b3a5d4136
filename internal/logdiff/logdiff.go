// Package logdiff compares a vercheck log with the kernel's log of the
// same program, instruction by instruction and register by register.
//
// A verdict is one bit per program; a level-2 log is the verifier's whole
// view of the search: every instruction it walked, in order, the
// registers and stack slots each one wrote, every branch it queued, every
// precision walk. Two verifiers that agree on the log agree on every state
// of the search, so comparing logs finds a difference in the abstract
// domain (a bound one side computes tighter, a pointer kind, a slot type)
// on programs where both verdicts agree — before it ever decides one. It is
// an oracle that owes nothing to vercheck's own picture of the verifier:
// the kernel says what each register holds.
//
// The comparison leaves out what is not state: the 6.18 kernel's stack
// liveness and SCC debug lines, the "Live regs before insn" table, source
// lines, times and totals, and map addresses (the kernel prints the map's
// address, vercheck its index). The registers printed after an
// instruction are those it scratched, and the kernel reprints a state on a
// line of its own after a debug line; so an instruction's comment and a
// following "N: R1=..." line are one state, and a register or slot printed
// by one side only is not a difference: only one printed by both with
// different values is.
package logdiff

import (
	"fmt"
	"regexp"
	"strings"
)

// Kind says what differs at a divergence.
type Kind int

// Kinds of divergence.
const (
	// State: a register or stack slot both logs print holds different
	// values.
	State Kind = iota
	// Event: the logs walk different instructions or branches, or print
	// different messages (precision walks, errors).
	Event
	// Length: one log goes on where the other ends.
	Length
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case State:
		return "state"
	case Event:
		return "event"
	case Length:
		return "length"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Divergence is the first place where two logs differ.
type Divergence struct {
	Kind Kind
	// Line and KernelLine are the 1-based lines of the two logs where
	// the difference shows.
	Line, KernelLine int
	// Insn is the last instruction both logs walked before it ("12: (79)
	// r0 = *(u64 *)(r0 +0)"), empty at the start.
	Insn string
	// Name is the register or slot that differs ("R3", "fp-8") for a
	// State divergence.
	Name string
	// Vercheck and Kernel are what each side printed there.
	Vercheck, Kernel string
}

// String describes the divergence on one line.
func (d *Divergence) String() string {
	where := "at the start"
	if d.Insn != "" {
		where = "after " + d.Insn
	}
	if d.Kind == State {
		return fmt.Sprintf("%s %s: vercheck %s=%s, kernel %s=%s (lines %d/%d)", where, d.Kind, d.Name, d.Vercheck, d.Name, d.Kernel, d.Line, d.KernelLine)
	}
	return fmt.Sprintf("%s %s: vercheck %q, kernel %q (lines %d/%d)", where, d.Kind, d.Vercheck, d.Kernel, d.Line, d.KernelLine)
}

// Patterns of the parser.
var (
	// ignored lines: the 6.18 kernel's stack liveness and SCC debug
	// output, the live-register table, the subprogram list (which the
	// kernel prints after some of its early checks, vercheck before),
	// the states an infinite loop report adds, source lines, totals and
	// times.
	ignored = regexp.MustCompile(`^\([\d,]+\) (frame \d+ insn \d+ [+-](live|written)|live stack update)|^SCC (enter|backedge|exit)|^Live regs before insn:|^ +\d+: [.0-9]{10,} \(|^func#\d+ @\d+$|^(cur|old) state:|^verification time|^processed \d+ insns|^stack depth|^; |^\s*$`)
	// mapAddress is an ld_imm64 of a map or map value.
	mapAddress = regexp.MustCompile(`0x[0-9a-f]{16}|map\[id:\d+\](\[0\]\+\d+)?`)
	// insnLine is "N: (op) text" with an optional "; state" comment,
	// which may be empty (scratched registers that print nothing).
	insnLine = regexp.MustCompile(`^(\d+): (\([0-9a-f]{2}\) .*?)(?:\s+;(?: (.*))?)?$`)
	// emptyState is "N:", the same empty state on a line of its own.
	emptyState = regexp.MustCompile(`^\d+:$`)
	// gluedTime is the stats line glued to a message the kernel printed
	// without its newline ("...tail callverification time 12 usec").
	gluedTime = regexp.MustCompile(`(\S)verification time \d+ usec$`)
	// stateLine is "N: [frameN: ]R1=... fp-8=..." before instruction N.
	stateLine = regexp.MustCompile(`^\d+: ((?:frame\d+: )?(?:R\d|fp-?\d|refs=).*)$`)
	// branchLine is "from N to M: state", a queued branch taken up.
	branchLine = regexp.MustCompile(`^from (\d+ to \d+): (.*)$`)
	// item is one "NAME=VALUE" of a state, VALUE with balanced
	// parentheses ("scalar(smin=0,var_off=(0x0; 0xff))").
	item = regexp.MustCompile(`(R\d+|fp-?\d+)=((?:[^ ()]|\((?:[^()]|\([^()]*\))*\))+)`)
	// spaces collapse the alignment of instruction text.
	spaces = regexp.MustCompile(`\s+`)
)

// eventKind is one parsed log line's kind.
type eventKind int

const (
	evInsn eventKind = iota
	evBranch
	evState
	evMsg
)

// event is one parsed log line (or, for evState, the registers and slots
// printed on consecutive lines).
type event struct {
	kind eventKind
	text string
	line int
}

// parse turns a log into events, merging consecutive states.
func parse(log string) []event {
	var evs []event
	add := func(e event) {
		if e.kind == evState && len(evs) > 0 && evs[len(evs)-1].kind == evState {
			evs[len(evs)-1].text += " " + e.text
			return
		}
		evs = append(evs, e)
	}
	for i, l := range strings.Split(log, "\n") {
		l = gluedTime.ReplaceAllString(strings.TrimRight(l, " \t"), "$1")
		if ignored.MatchString(l) || emptyState.MatchString(l) {
			continue
		}
		l = mapAddress.ReplaceAllString(l, "MAP")
		n := i + 1
		if m := branchLine.FindStringSubmatch(l); m != nil {
			add(event{evBranch, "from " + m[1], n})
			add(event{evState, m[2], n})
			continue
		}
		if m := insnLine.FindStringSubmatch(l); m != nil {
			add(event{evInsn, m[1] + ": " + spaces.ReplaceAllString(m[2], " "), n})
			if m[3] != "" {
				add(event{evState, m[3], n})
			}
			continue
		}
		if m := stateLine.FindStringSubmatch(l); m != nil {
			add(event{evState, m[1], n})
			continue
		}
		add(event{evMsg, l, n})
	}
	return evs
}

// items maps each register and slot of a state to its value.
func items(state string) map[string]string {
	out := map[string]string{}
	for _, m := range item.FindAllStringSubmatch(state, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// firstStateDifference is the first register or slot (in vercheck's
// order) both states print with different values.
func firstStateDifference(v, k string) (name, vv, kv string, ok bool) {
	kItems := items(k)
	for _, m := range item.FindAllStringSubmatch(v, -1) {
		if x, found := kItems[m[1]]; found && x != m[2] {
			return m[1], m[2], x, true
		}
	}
	return "", "", "", false
}

// Compare returns the first divergence between vercheck's log and the
// kernel's log of the same program at the same level, or nil when they
// agree on every instruction, branch, message and printed state.
func Compare(vercheck, kernel string) *Divergence {
	return compare(parse(vercheck), parse(kernel), 0, 0)
}

// CompareKept is Compare, or CompareTail when vercheck's log is only the
// tail of a longer one (truncated: verifier.Result.LogTruncated).
func CompareKept(vercheck string, truncated bool, kernel string) *Divergence {
	if truncated {
		return CompareTail(vercheck, kernel)
	}
	return Compare(vercheck, kernel)
}

// tailAnchor is how many instructions, branches and messages of a kept
// tail must match the kernel's log in a row to place the tail there.
const tailAnchor = 64

// CompareTail is Compare for a vercheck log that is only the tail of a
// longer one (verifier.Result.LogTruncated): its first line, which may
// start mid-line, is dropped, the rest is placed where its first
// instructions, branches and messages follow each other in the kernel's
// log, and compared from there to the end. A tail found nowhere in the
// kernel's log is an Event divergence at its first line.
func CompareTail(vercheck, kernel string) *Divergence {
	if i := strings.IndexByte(vercheck, '\n'); i >= 0 {
		// An empty first line keeps the line numbers the log's.
		vercheck = vercheck[i:]
	}
	a, b := parse(vercheck), parse(kernel)
	i := skipStates(a, 0)
	if i == len(a) {
		return nil
	}
	for j := range b {
		if anchored(a, b, i, j) {
			return compare(a, b, i, j)
		}
	}
	return &Divergence{Kind: Event, Line: a[i].line, Vercheck: a[i].text, Kernel: "(vercheck's kept tail of its log matches no part of the kernel's)"}
}

// anchored reports whether the events of a from i and of b from j agree
// on their first tailAnchor instructions, branches and messages (states
// left out), or on all of a's when it has fewer.
func anchored(a, b []event, i, j int) bool {
	for n := 0; n < tailAnchor && i < len(a); n++ {
		i, j = skipStates(a, i), skipStates(b, j)
		if i == len(a) {
			return true
		}
		if j == len(b) || a[i].kind != b[j].kind || a[i].text != b[j].text {
			return false
		}
		i, j = i+1, j+1
	}
	return true
}

// compare is Compare of the events of a from i and of b from j.
func compare(a, b []event, i, j int) *Divergence {
	lastInsn := ""
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x.kind == evState && y.kind == evState:
			if name, vv, kv, ok := firstStateDifference(x.text, y.text); ok {
				return &Divergence{Kind: State, Line: x.line, KernelLine: y.line, Insn: lastInsn, Name: name, Vercheck: vv, Kernel: kv}
			}
			i, j = i+1, j+1
		case x.kind == evState:
			i++
		case y.kind == evState:
			j++
		case x != (event{y.kind, y.text, x.line}):
			return &Divergence{Kind: Event, Line: x.line, KernelLine: y.line, Insn: lastInsn, Vercheck: x.text, Kernel: y.text}
		default:
			if x.kind == evInsn {
				lastInsn = x.text
			}
			i, j = i+1, j+1
		}
	}
	i, j = skipStates(a, i), skipStates(b, j)
	if i < len(a) || j < len(b) {
		d := &Divergence{Kind: Length, Insn: lastInsn}
		if i < len(a) {
			d.Line, d.Vercheck = a[i].line, a[i].text
		}
		if j < len(b) {
			d.KernelLine, d.Kernel = b[j].line, b[j].text
		}
		return d
	}
	return nil
}

// skipStates passes the states at evs[i:], which a log may end with.
func skipStates(evs []event, i int) int {
	for i < len(evs) && evs[i].kind == evState {
		i++
	}
	return i
}
