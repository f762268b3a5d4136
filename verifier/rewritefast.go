package verifier

// The rewritten length of a single function, without the replay.
//
// The replay (rewrite.go) builds the program as each pass leaves it, for
// the 16-bit probe and jit_subprogs' lookup. Neither can say anything
// about most programs: the probe needs a program longer than S16_MAX,
// and the lookup more than one function. For a single function that the
// passes cannot grow past S16_MAX, no bpf_loop inlined (its callback
// would be a second function) and no default exception callback added
// (a second function too), only the rewritten length is left, and it is
// a count:
//
//	len(prog) - removed + prologue - 1 + growth of the patched + loop-budget prologue
//
// where removed counts the instructions opt_remove_dead_code and
// opt_remove_nops delete and each remaining instruction as loaded adds its
// first pass's patch less one (a patched instruction becomes the patch's
// own, which later passes leave alone).
//
// The count is the replay's when every deletion keeps what each jump
// points at. opt_remove_dead_code does so unless a jump that remains
// points into a dead run past its head (it keeps its index); the count
// checks that every jump that remains points at a reached instruction (or
// the end). opt_remove_nops deletes one instruction at a time, which
// keeps every target (one at the nop moves to what follows it), so a goto
// or may_goto x jumping forward to t is a nop, whenever the pass looks at
// it, exactly when no instruction between x and t remains. The pass looks
// at every instruction at least once and deletions only make a jump more
// of a nop, so x goes when nothing between it and t remains to start
// with, and stays when a reached instruction in between is not a goto or
// may_goto (the pass deletes nothing else). Between the two, a span whose
// first remaining instruction is itself a goto or may_goto, whether x
// goes depends on the order of the pass's steps: the count gives up and
// the replay decides. TestXlatedSingleFunctionMatchesReplay checks the
// count against the replay on random programs.

// xlatedSingleFunction is the rewritten length of a single function the
// passes cannot grow past S16_MAX, and for which the replay could report
// nothing else (no 16-bit refusal, no function to look up); ok is false
// when the program is not such a function, or the count cannot tell
// without the replay. An unknown patch length gives 0, as the replay
// does.
func (e *env) xlatedSingleFunction(l *rewriteLens) (xlated int, ok bool) {
	n := len(e.prog)
	bound := n + l.growHi + mayGotoPrologueInsns
	if l.prologue > 1 {
		bound += l.prologue - 1
	}
	if len(e.cfg.Subprogs) != 1 || l.throws || len(l.inline) != 0 || bound > jumpOffMax {
		return 0, false
	}
	if l.unknown {
		// Both replays pass (the probe cannot fire) and the length is
		// not known: the replay reports 0.
		return 0, true
	}
	removed, grow, mayGoto := l.unseen, 0, false
	for _, i := range l.patched {
		grow += l.firstPatchLen(int(i)) - 1
	}
	visit := func(i int, fastcallNop []bool) bool {
		f, ok := e.singleFunctionShape(i, fastcallNop)
		if !ok {
			return false
		}
		if f.target >= 0 && (f.gotoShape || f.mayGotoShape) && f.target > i {
			j := i + 1
			for j < f.target && !e.seen[j] {
				j++
			}
			if j == f.target {
				// A nop once the dead code is gone: deleted, with
				// the patch it would have had.
				removed++
				if l.byInsn[i] != [numPasses]patchLen{} {
					grow -= l.firstPatchLen(i) - 1
				}
				return true
			}
			if g, _ := e.singleFunctionShape(j, fastcallNop); g.gotoShape || g.mayGotoShape {
				return false // may become a nop, or not
			}
		}
		mayGoto = mayGoto || f.mayGotoShape
		return true
	}
	if e.fastcall.spills == nil {
		// Only the instructions that point somewhere may be nops or
		// may_gotos.
		for _, i := range l.jumps {
			if !visit(int(i), nil) {
				return 0, false
			}
		}
	} else {
		// The fastcall spills and fills become nops too.
		fastcallNop := e.fastcallNops()
		for i := range e.prog {
			if e.seen[i] && !visit(i, fastcallNop) {
				return 0, false
			}
		}
	}
	if removed == n {
		// Nothing left for the prologue to go before (no accepted
		// program, whose exits remain): the replay decides.
		return 0, false
	}
	xlated = n - removed + grow
	if l.prologue > 1 {
		xlated += l.prologue - 1
	}
	if mayGoto {
		xlated += mayGotoPrologueInsns
	}
	return xlated, true
}

// firstPatchLen is the smallest length of the first patch of
// instruction i, which some pass patches: later passes leave the patch's
// own instructions alone.
func (l *rewriteLens) firstPatchLen(i int) int {
	for _, pl := range l.byInsn[i] {
		if pl.hi > 1 {
			return int(pl.lo)
		}
	}
	return 1
}

// singleFunctionShape is reached instruction i as the nop pass finds it
// (fixupProgram, the fastcall nops, hardWireDeadBranches); ok is false
// when its target is neither a reached instruction nor the end, where
// deleting the dead code may not keep what it points at.
func (e *env) singleFunctionShape(i int, fastcallNop []bool) (fixupInsn, bool) {
	f := e.fixupInsnAt(i, fastcallNop)
	n := len(e.prog)
	if _, ok := e.prog[i].Relative(); ok && f.target < 0 {
		return f, false
	}
	f.hardWire(i, n, func(k int) bool { return e.seen[k] })
	return f, f.target < 0 || f.target == n || f.target < n && e.seen[f.target]
}
