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

import (
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

// checkMayGoto simulates may_goto at e.insnIdx (the JCOND case of
// check_cond_jmp_op).
func (e *env) checkMayGoto(off int) error {
	idx := e.insnIdx
	e.mayGotoSeen.set(idx)
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

// mayGotoLoopHit is the may_goto part of isStateVisited's loop branch,
// asked at a may_goto: cur is another iteration (a different depth) whose
// state is within its ancestor old's.
func (e *env) mayGotoLoopHit(old, cur *states.State) bool {
	return old.MayGotoDepth != cur.MayGotoDepth &&
		e.eq.StatesEqual(old, cur, states.RangeWithin)
}

// mayGotoStackBytes is the stack do_misc_fixups gives a subprogram with a
// may_goto when the JIT times the loops (x86-64): the budget and the start
// time, one 8-byte slot each.
const mayGotoStackBytes = 16

// addMayGotoStack is the stack part of do_misc_fixups for may_goto: each
// subprogram holding a may_goto that some path reached grows by
// mayGotoStackBytes, once. A "may_goto +0" is no jump: opt_remove_nops
// drops it first (privileged programs, as vercheck checks), and
// opt_remove_dead_code the unreached ones.
func (e *env) addMayGotoStack() {
	grown := make(map[int]bool)
	nops := e.removedNops()
	for idx := range e.prog {
		if !e.mayGotoSeen.has(idx) || nops.has(idx) {
			continue
		}
		sp := e.cfg.SubprogOf(idx)
		if sp < 0 || sp >= len(e.stackDepth) || grown[sp] {
			continue
		}
		grown[sp] = true
		e.stackDepth[sp] += mayGotoStackBytes
	}
}

// removedNops is what opt_remove_nops drops: "ja +0", "may_goto +0", and,
// as each removal shortens the jumps over it, a may_goto whose target is
// reached by falling through nothing but such nops (a run of may_gotos
// ending at one place collapses whole).
func (e *env) removedNops() insnSet {
	nops := newInsnSet(len(e.prog))
	for idx := len(e.prog) - 1; idx >= 0; idx-- {
		in := e.prog[idx]
		switch {
		case in.Op == insn.ClassJMP|insn.JmpJA && in.Off == 0 && in.Imm == 0:
			nops.set(idx)
		case in.IsMayGoto() && in.Off >= 0 && idx+int(in.Off) < len(e.prog):
			skipped := true
			for j := idx + 1; j <= idx+int(in.Off); j++ {
				skipped = skipped && nops.has(j)
			}
			if skipped {
				nops.set(idx)
			}
		}
	}
	return nops
}
