package profile

import (
	"fmt"

	"github.com/vercheck/vercheck/states"
)

// ancestorKind names a miss against an ancestor that its exact comparison
// finds identical: only the loop checks' own fields (iteration depths,
// ids renamed) set the two apart.
const ancestorKind = "ancestor"

// iterInactiveKind is states.MismatchIterInactive's name: a reason that
// already says the stored state is the same path's.
var iterInactiveKind = states.MismatchIterInactive.String()

// newReason renders one recorded reason.
func newReason(k reasonKey, acc *reasonAcc, p *states.Printer) Reason {
	if p == nil {
		p = &states.Printer{}
	}
	m := acc.example
	r := Reason{Kind: m.Kind.String(), Where: m.Where(int(k.curFrame)), Ancestor: k.ancestor, Count: acc.count}
	if k.ancestor && m.Kind == states.MismatchNone {
		r.Kind = ancestorKind
	}
	r.Old, r.Cur = m.Values(p)
	r.Precise = m.Old.Type == states.ScalarValue && m.Old.Precise() && (m.Reg >= 0 || m.OldSlot[states.SlotSize-1] == states.StackSpill)
	r.Text = reasonText(r)
	return r
}

// kindPhrases say how a register or slot differs, per mismatch kind:
// "R3" + phrase.
var kindPhrases = map[string]string{
	"type":      "'s type differs",
	"uninit":    " is uninitialised in the stored state",
	"range":     "'s range differs",
	"tnum":      "'s known bits differ",
	"offset":    " points elsewhere",
	"pkt_range": " has fewer packet bytes checked",
	"id":        "'s links to other registers or objects differ",
	"spill":     " holds a spilled register in one state only",
	"slot":      "'s stack contents differ",
	"unknown":   " differs in no way vercheck could name",
}

// stateWide says what differs when no register or slot does.
var stateWide = map[string]string{
	"call_chain":     "the call chain differs (call depth, call site or callback depth)",
	"speculative":    "the stored state is on a speculative path",
	"sleepable":      "one state is in a sleepable section, the other not",
	"refs":           "held references, locks or RCU sections differ",
	"unknown":        "no difference vercheck could name",
	iterInactiveKind: "the iterator at this next call is drained, and the same path's earlier loop iterations prune only an active iterator's state",
	ancestorKind:     "it is this path's own earlier iteration of a loop, identical but for its iteration depth",
}

// reasonText says a reason in a sentence, such as "R3's range differs
// ([0,255] vs [0,4095], precise)".
func reasonText(r Reason) string {
	var s string
	if r.Where == "" {
		s = stateWide[r.Kind]
	} else {
		s = r.Where + kindPhrases[r.Kind]
		if r.Old != "" || r.Cur != "" {
			precise := ""
			if r.Precise {
				precise = ", precise"
			}
			s += fmt.Sprintf(" (%s vs %s%s)", r.Old, r.Cur, precise)
		}
	}
	if r.Ancestor && r.Kind != ancestorKind && r.Kind != iterInactiveKind {
		s += " from the same path's earlier loop iteration"
	}
	return s
}
