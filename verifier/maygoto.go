package verifier

// may_goto (BPF_JMP|BPF_JCOND with src_reg 0): a conditional jump whose
// outcome the program does not control. At run time the kernel gives the
// instruction a hidden budget of iterations and takes the jump once it is
// spent, so a loop that checks may_goto on every iteration ends.
//
// The verifier follows the jump on the current path (the budget is spent:
// leave the loop) and pushes the fall-through (another iteration) with the
// state's MayGotoDepth one higher. may_goto is a forced checkpoint; the loop
// has converged when a state at a different depth is within (RangeWithin)
// an ancestor at the same instruction. As for iterators, the scalars that
// changed since the previous iteration and never mattered are widened in
// the pushed state, and the infinite-loop check ignores states at
// different depths.

import "github.com/vercheck/vercheck/states"

// checkMayGoto simulates may_goto at e.insnIdx (the JCOND case of
// check_cond_jmp_op).
func (e *env) checkMayGoto(off int) error {
	idx := e.insnIdx
	var prev *states.State
	if p := e.cur.Parent; p != nil {
		prev = e.prevLoopEntry(p, idx)
	}
	queued, err := e.pushStack(idx+1, idx)
	if err != nil {
		return err
	}
	queued.MayGotoDepth++
	if prev != nil {
		widenLoopScalars(prev, queued)
	}
	e.insnIdx += off + 1
	return nil
}

// mayGotoLoopHit is the may_goto part of isStateVisited's loop branch: at
// a may_goto, cur is another iteration (a different depth) whose state is
// within its ancestor old's.
func (e *env) mayGotoLoopHit(idx int, old, cur *states.State) bool {
	return e.prog[idx].IsMayGoto() && old.MayGotoDepth != cur.MayGotoDepth &&
		e.eq.StatesEqual(old, cur, states.RangeWithin)
}
