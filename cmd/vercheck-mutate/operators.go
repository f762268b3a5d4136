package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/vercheck/vercheck/internal/mutate"
	"github.com/vercheck/vercheck/internal/oracle"
)

// opCount is what became of the mutants one operator took part in.
type opCount struct {
	mutants, judged, accepted, findings int
}

// opStats counts mutants by the operators that made them, to show which
// operators reach the kernel's rejections and which mostly make programs
// it accepts.
type opStats map[string]*opCount

// add counts outcome o of a mutant made by operators ops (each counted
// once).
func (s opStats) add(ops []string, o oracle.Outcome) {
	for _, op := range slices.Compact(slices.Sorted(slices.Values(ops))) {
		c := s[op]
		if c == nil {
			c = &opCount{}
			s[op] = c
		}
		c.mutants++
		if judged, accepted := kernelVerdict(o.Class); judged {
			c.judged++
			if accepted {
				c.accepted++
			}
		}
		if o.Class.Finding() {
			c.findings++
		}
	}
}

// kernelVerdict says whether the kernel gave a verifier verdict on a
// mutant of class c, and whether it accepted.
func kernelVerdict(c oracle.Class) (judged, accepted bool) {
	switch c {
	case oracle.BothAccept, oracle.InsnsDiffer, oracle.XlatedDiffers, oracle.FalseReject:
		return true, true
	case oracle.BothReject, oracle.MessageDiffers, oracle.ErrnoDiffers, oracle.FalseAccept:
		return true, false
	}
	return false, false
}

// print writes one line per operator, in the order Mutate draws them:
// the share of all mutants it took part in, the kernel's accepted share
// of those, and the findings.
func (s opStats) print(w io.Writer, total int) {
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "%-24s %8s %7s %9s %8s\n", "operator", "mutants", "share", "accepted", "findings")
	for _, name := range slices.Concat(mutate.Operators(), []string{"edge"}, mutate.LoadOperators(), []string{mutate.PastErrorOperator}) {
		c := s[name]
		if c == nil {
			continue
		}
		acc := 0.0
		if c.judged > 0 {
			acc = 100 * float64(c.accepted) / float64(c.judged)
		}
		fmt.Fprintf(w, "%-24s %8d %6.1f%% %8.1f%% %8d\n", name, c.mutants, 100*float64(c.mutants)/float64(total), acc, c.findings)
	}
}
