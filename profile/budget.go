package profile

import (
	"fmt"
	"strings"
)

// Thresholds of the budget explanation.
const (
	// loopBudgetShare is the share of insn_processed above which one
	// loop is named as where the budget went.
	loopBudgetShare = 0.5
	// budgetLines is how many of the hottest source lines (or
	// instructions) are named when no loop holds the budget.
	budgetLines = 3
)

// Budget explains where the processed-instruction budget went, for a
// program rejected at a complexity limit ("BPF program is too large",
// "The sequence of 8192 jumps is too complex"): the loop that consumed
// most of it (or, when no loop holds half of it, the hottest source
// lines), and the difference that most often kept the states stored
// there from covering new ones. It returns one sentence per line, or
// nothing for a profile with no visits.
func (p *Profile) Budget() []string {
	if p.InsnProcessed == 0 {
		return nil
	}
	if l, ok := p.budgetLoop(); ok {
		out := []string{fmt.Sprintf("the budget went to the loop at %s: %s of %s insns, %s explored, %s",
			loopPlace(l), p.share(l.Visits), group(p.InsnProcessed), count(l.Iterations, "iteration", "iterations"),
			count(l.StatesAdded, "state stored", "states stored"))}
		return append(out, apartLine("in the loop", l.Misses, l.MissReasons)...)
	}
	out := []string{"no loop holds the budget; the hottest places are " + p.hottestPlaces()}
	if sp, ok := p.budgetSubprog(); ok {
		// A callback verified again at every call (bpf_loop's, whose
		// iterations are no loop of the graph) or a function called
		// from many places.
		out = []string{fmt.Sprintf("no loop holds the budget; it went to the function %s: %s of %s insns, entered %s; the hottest places are %s",
			p.subprogPlace(sp), p.share(sp.Visits), group(p.InsnProcessed), count(p.insnAt(sp.Start).Visits, "time", "times"), p.hottestPlaces())}
	}
	var reasons [][]Reason
	for _, in := range p.Insns {
		reasons = append(reasons, in.MissReasons)
	}
	return append(out, apartLine("", p.Misses, mergeReasons(reasons...))...)
}

// budgetLoop returns the loop with the most visits if it holds more than
// loopBudgetShare of them.
func (p *Profile) budgetLoop() (Loop, bool) {
	loops := topBy(p.Loops, 1, func(l Loop) int { return l.Visits })
	if len(loops) == 0 || float64(loops[0].Visits) <= loopBudgetShare*float64(p.InsnProcessed) {
		return Loop{}, false
	}
	return loops[0], true
}

// budgetSubprog returns the function other than the main program with
// the most visits if it holds more than loopBudgetShare of them.
func (p *Profile) budgetSubprog() (Subprog, bool) {
	var best Subprog
	for _, sp := range p.Subprogs {
		if sp.Index > 0 && sp.Visits > best.Visits {
			best = sp
		}
	}
	if float64(best.Visits) <= loopBudgetShare*float64(p.InsnProcessed) {
		return Subprog{}, false
	}
	return best, true
}

// insnAt returns the profile of instruction idx (zero when it was never
// visited).
func (p *Profile) insnAt(idx int) Insn {
	for _, in := range p.Insns {
		if in.Insn == idx {
			return in
		}
	}
	return Insn{}
}

// subprogPlace names a function with its first instruction's source line
// where there is one.
func (p *Profile) subprogPlace(sp Subprog) string {
	if in := p.insnAt(sp.Start); in.Line != 0 {
		return fmt.Sprintf("%s (%s)", sp.Name, where(in.File, in.Line))
	}
	return sp.Name
}

// loopPlace names a loop by its header's source line, or its header
// instruction without line info.
func loopPlace(l Loop) string {
	if l.Line == 0 {
		return fmt.Sprintf("insn %d", l.Header)
	}
	return fmt.Sprintf("%s (%s)", where(l.File, l.Line), quote(l.Source))
}

// hottestPlaces names the hottest source lines, or instructions without
// line info, with their shares.
func (p *Profile) hottestPlaces() string {
	var parts []string
	if len(p.Lines) > 0 {
		for _, l := range topBy(p.Lines, budgetLines, func(l Line) int { return l.Visits }) {
			parts = append(parts, fmt.Sprintf("%s (%s) %s", where(l.File, l.Line), quote(l.Source), p.share(l.Visits)))
		}
	} else {
		for _, in := range topBy(p.Insns, budgetLines, func(i Insn) int { return i.Visits }) {
			parts = append(parts, fmt.Sprintf("insn %d (%s) %s", in.Insn, quote(in.Text), p.share(in.Visits)))
		}
	}
	return strings.Join(parts, ", ")
}

// apartLine says why stored states did not cover new ones, from the most
// frequent reason, or nothing without misses.
func apartLine(where string, misses int, reasons []Reason) []string {
	if misses == 0 || len(reasons) == 0 {
		return nil
	}
	if where != "" {
		where = " " + where
	}
	return []string{fmt.Sprintf("stored states%s did not match: %s", where, missSummary(misses, reasons))}
}
