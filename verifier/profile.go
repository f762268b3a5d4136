package verifier

import (
	"github.com/vercheck/vercheck/profile"
	"github.com/vercheck/vercheck/states"
)

// profileMiss records why the stored state old did not prune cur at
// prune point idx, comparing them the way isStateVisited did: an
// ancestor (a loop iteration still open) of an iterator, may_goto or
// callback loop in RangeWithin mode, any other ancestor the way the
// infinite-loop check does (Exact), and a finished state in RangeWithin
// mode when its loop's marks are incomplete (loop), NotExact otherwise.
// Past profile.FullMisses misses at idx, only the sampled ones are
// compared again (profile.Recorder.CountMiss).
func (e *env) profileMiss(idx int, old, cur *states.State, loop bool) {
	weight := e.prof.CountMiss(idx)
	if weight == 0 {
		return // a miss whose reason is not sampled
	}
	ancestor := old.Branches > 0
	iterNext := e.isIterNextInsn(idx)
	if ancestor && iterNext && !iterActiveAtNext(cur) {
		// iterNextLoopHit compared nothing.
		m := states.Mismatch{Kind: states.MismatchIterInactive, Frame: -1, Reg: -1, Slot: -1}
		e.prof.Classify(idx, m, int(cur.CurFrame), ancestor, weight)
		return
	}
	mode := states.NotExact
	switch {
	case ancestor && (iterNext || e.cfg.CallsCallback(idx) ||
		(e.prog[idx].IsMayGoto() && old.MayGotoDepth != cur.MayGotoDepth)):
		mode = states.RangeWithin
	case ancestor:
		mode = states.Exact
	case loop:
		mode = states.RangeWithin
	}
	e.prof.Classify(idx, e.eq.Mismatch(old, cur, mode), int(cur.CurFrame), ancestor, weight)
}

// buildProfile makes the profile of the verification, nil when it was not
// asked for or the program was refused before its walk.
func (e *env) buildProfile() *profile.Profile {
	if e.prof == nil {
		return nil
	}
	return profile.Build(e.prof, profile.Program{
		Insns:      e.prog,
		Lines:      e.lp.Lines.Slice(),
		Funcs:      e.lp.Funcs,
		StackDepth: e.stackDepth,
		Printer:    &e.log.printer,
	})
}
