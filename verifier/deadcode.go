package verifier

import (
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// Dead code and the JIT's function lookup.
//
// After a privileged program passes do_check, the 6.18 kernel rewrites it
// before the JIT (bpf_check): opt_hard_wire_dead_code_branches turns each
// conditional jump one of whose edges no path took into a goto,
// opt_remove_dead_code deletes every run of instructions no path reached
// (insn_aux_data.seen), opt_remove_nops deletes the resulting "goto +0"
// and "may_goto +0", and jit_subprogs then looks up, for every bpf-to-bpf
// call and every function address (ld_imm64 BPF_PSEUDO_FUNC), the
// function starting where it points. Each deletion fixes up the relative
// offsets across it (bpf_adj_branches) and the function starts
// (adjust_subprog_starts_after_remove), but an offset that pointed into
// the deleted run keeps its distance: a reached ld_imm64 taking the
// address of a callback no path called (its call on a path never taken,
// or replaced) is left pointing at whatever follows the removed
// function. When that is no function's start and functions remain (the
// default exception callback do_misc_fixups adds to a program that
// throws counts), jit_subprogs reports "verifier bug: No program to jit
// at insn N" and fails the load with EFAULT. vercheck refuses such a
// program as one the kernel's verifier faults on (ErrKernelFault), with
// the kernel's words.
//
// Between the two, do_misc_fixups gives every function that still holds a
// may_goto a prologue initialising its loop budget: BPF_ST instructions
// patched in before the function's first instruction, which the patch
// carries along as its last instruction. The patch fixes up every offset
// across it but its own (bpf_patch_insn_single skips the patched range),
// so a first instruction that is a call, or a function address, keeps its
// relative offset although it moved: one pointing to an earlier function
// now points the prologue's length past that function's start, where no
// function may start (a later function is reached correctly, since it
// moved too). The 7.2 selftests' verifier_global_ptr_args mutated by
// vercheck-mutate met it: a global function beginning with a call to
// another, then a may_goto loop.

// fixupInsn is one instruction of the kernel's rewrite of an accepted
// program: what opt_remove_dead_code and opt_remove_nops look at.
type fixupInsn struct {
	// orig is the instruction's index in the verified program.
	orig int
	// target is the absolute index a relative instruction points at
	// (-1 for the others).
	target int
	// funcRef: a bpf-to-bpf call or a function address, which
	// jit_subprogs looks up.
	funcRef bool
	// gotoShape and mayGotoShape: a goto or may_goto with no register
	// and no immediate, a nop (NOP, MAY_GOTO_0) when it targets the next
	// instruction.
	gotoShape, mayGotoShape bool
	// cond: a conditional jump (insn_is_cond_jump).
	cond bool
	// movedByPrologue: a function's first instruction moved behind a
	// may_goto prologue, its offset left as it was.
	movedByPrologue bool
	seen            bool
	// jump16: a jump whose offset is the 16-bit off field (any jump but
	// gotol, calls and exits), which bpf_adj_branches may find out of
	// range (rewrite.go).
	jump16 bool
	// primary: the instruction as loaded, not one a rewrite inserted;
	// the passes patch only these.
	primary bool
}

// fixupProg is the program under the kernel's dead-code passes: its
// instructions and its functions' starts, the last one the end of the
// program (the kernel's fake exit subprogram).
type fixupProg struct {
	insns  []fixupInsn
	starts []int
}

// checkJitFunctionTargets is jit_subprogs' lookup over p, the accepted
// program after the kernel's rewrites (rewrite.go): every bpf-to-bpf call
// and function address must point at a function's start.
func (e *env) checkJitFunctionTargets(p *fixupProg) error {
	if p == nil || len(p.starts)-1 <= 1 {
		// jit_subprogs has nothing to split: a single function.
		return nil
	}
	for _, in := range p.insns {
		if in.funcRef && !slices.Contains(p.starts[:len(p.starts)-1], in.target) {
			why := "the address of a function no path calls, whose code the kernel removes as dead"
			if in.movedByPrologue {
				why = "a call or function address first in a function with a may_goto, which the loop budget's prologue moves without fixing its offset"
			}
			err := e.unsupported(in.orig, "%s: the 6.18 verifier reports \"verifier bug: No program to jit at insn %d (subprog < 0)\" and fails the load with EFAULT", why, in.target)
			err.(*RejectError).kind = ErrKernelFault
			return err
		}
	}
	return nil
}

// fixupProgram returns the verified program as the dead-code passes see it.
func (e *env) fixupProgram() *fixupProg {
	p := &fixupProg{insns: make([]fixupInsn, len(e.prog))}
	nops := e.fastcallNops()
	for i := range e.prog {
		p.insns[i] = e.fixupInsnAt(i, nops)
	}
	for _, sp := range e.cfg.Subprogs {
		p.starts = append(p.starts, sp.Start)
	}
	p.starts = append(p.starts, len(e.prog))
	return p
}

// fixupInsnAt is instruction i as the dead-code passes find it. nops
// marks the fastcall spills and fills remove_fastcall_spills_fills has
// made "goto +0" (fastcallNops), nil for none.
func (e *env) fixupInsnAt(i int, nops []bool) fixupInsn {
	in := &e.prog[i]
	f := fixupInsn{orig: i, target: -1, seen: e.seen[i], primary: true}
	if rel, ok := in.Relative(); ok {
		f.jump16 = in.IsJmpClass() && !in.IsPseudoCall() && in.Op != insn.ClassJMP32|insn.JmpJA
		f.target = i + int(rel) + 1
		f.funcRef = in.IsPseudoCall() || in.IsPseudoFunc()
		bare := in.Dst == 0 && in.Src == 0 && in.Imm == 0
		f.gotoShape = in.Op == insn.ClassJMP|insn.JmpJA && bare
		f.mayGotoShape = in.Op == insn.ClassJMP|insn.JmpJCOND && bare
		f.cond = isCondJump(*in)
	}
	if nops != nil && nops[i] {
		f.target, f.gotoShape, f.jump16 = i+1, true, true
	}
	return f
}

// isCondJump is the kernel's insn_is_cond_jump: any jump of the JMP32
// class but gotol, and of the JMP class but goto, call and exit (may_goto
// included).
func isCondJump(in insn.Insn) bool {
	switch in.Class() {
	case insn.ClassJMP32:
		return in.JmpOp() != insn.JmpJA
	case insn.ClassJMP:
		op := in.JmpOp()
		return op != insn.JmpJA && op != insn.JmpCall && op != insn.JmpExit
	}
	return false
}

// hardWireDeadBranches is opt_hard_wire_dead_code_branches: a
// conditional jump whose fall-through no path reached becomes a goto to
// its target, one whose target no path reached a goto +0 (a nop).
func (p *fixupProg) hardWireDeadBranches() {
	seen := func(k int) bool { return p.insns[k].seen }
	for i := range p.insns {
		p.insns[i].hardWire(i, len(p.insns), seen)
	}
}

// hardWire is opt_hard_wire_dead_code_branches for f, instruction i of
// an n-instruction program whose reached instructions seen tells.
func (f *fixupInsn) hardWire(i, n int, seen func(int) bool) {
	if !f.cond || i+1 >= n {
		return
	}
	switch {
	case !seen(i + 1):
	case f.target >= 0 && f.target < n && !seen(f.target):
		f.target = i + 1
	default:
		return
	}
	f.cond, f.gotoShape, f.mayGotoShape = false, true, false
}

// removeDeadCode is opt_remove_dead_code: every maximal run of
// instructions no path reached is deleted.
func (p *fixupProg) removeDeadCode() {
	for i := 0; i < len(p.insns); i++ {
		n := 0
		for i+n < len(p.insns) && !p.insns[i+n].seen {
			n++
		}
		if n > 0 {
			p.remove(i, n)
		}
	}
}

// removeNops is opt_remove_nops: each goto +0 and may_goto +0 is deleted;
// after a may_goto +0 the pass looks again from the instruction before
// the one before it, which a deletion may have made a may_goto +0.
func (p *fixupProg) removeNops() {
	for i := 0; i < len(p.insns); i++ {
		f := p.insns[i]
		if f.target != i+1 || !f.gotoShape && !f.mayGotoShape {
			continue
		}
		p.remove(i, 1)
		if f.mayGotoShape && i > 0 {
			i -= 2
		} else {
			i--
		}
	}
}

// remove is verifier_remove_insns: n instructions deleted at off. A
// target past them moves back with the code (bpf_adj_branches); one into
// them keeps its index. A function wholly inside them is dropped and the
// starts after them move back (adjust_subprog_starts_after_remove); a
// function whose head alone is deleted keeps its start.
func (p *fixupProg) remove(off, n int) {
	p.insns = slices.Delete(p.insns, off, off+n)
	for k := range p.insns {
		if p.insns[k].target >= off+n {
			p.insns[k].target -= n
		}
	}
	last := len(p.starts) - 1 // the fake exit
	i := 0
	for i < last && p.starts[i] < off {
		i++
	}
	j := i
	for j < last && p.starts[j] < off+n {
		j++
	}
	if p.starts[j] != off+n {
		j--
	}
	if j > i {
		p.starts = slices.Delete(p.starts, i, j)
	} else if p.starts[i] == off {
		i++
	}
	for k := i; k < len(p.starts); k++ {
		p.starts[k] -= n
	}
}

// appendHiddenExceptionCallback is add_hidden_subprog at the start of
// do_misc_fixups: a program some path of which called bpf_throw, with no
// exception callback of its own, gets the default one (r0 = r1; exit)
// patched in after its last instruction, as a function of its own. The
// patch at the last instruction moves every target past the end by its
// two new instructions (bpf_adj_branches), so a function address that
// pointed past the end, at a last function the dead-code pass removed,
// now points past the new function's start.
func (p *fixupProg) appendHiddenExceptionCallback() {
	n := len(p.insns)
	for k := 0; k < n-1; k++ {
		if p.insns[k].target >= n {
			p.insns[k].target += hiddenExceptionCallbackInsns
		}
	}
	last := p.insns[n-1].orig
	for range hiddenExceptionCallbackInsns {
		p.insns = append(p.insns, fixupInsn{orig: last, target: -1, seen: true})
	}
	p.starts[len(p.starts)-1] = n
	p.starts = append(p.starts, n+hiddenExceptionCallbackInsns)
}

// hiddenExceptionCallbackInsns is the default exception callback's length:
// r0 = r1; exit.
const hiddenExceptionCallbackInsns = 2

// mayGotoPrologueInsns is the length of the prologue do_misc_fixups puts
// at the start of a function holding a may_goto: one BPF_ST per hidden
// stack slot (mayGotoStackBytes, the timed loops of x86-64).
const mayGotoPrologueInsns = mayGotoStackBytes / 8

// insertMayGotoPrologues is the end of do_misc_fixups: each function that
// holds a may_goto, in order, gets its prologue (see above).
//
// It returns the index of the first function start whose patch
// bpf_adj_branches refuses (a jump to the start, from far enough past
// it, leaving 16 bits), -1 for none.
func (p *fixupProg) insertMayGotoPrologues() int {
	for k := 0; k < len(p.starts)-1; k++ {
		start, end := p.starts[k], p.starts[k+1]
		if slices.ContainsFunc(p.insns[start:end], func(f fixupInsn) bool { return f.mayGotoShape }) {
			n := mayGotoPrologueInsns + 1 // with the first instruction
			if j, _ := p.firstOverflow([]rewritePatch{{pos: start, lo: n, hi: n}}, false); j >= 0 {
				return start
			}
			p.insertBefore(start, mayGotoPrologueInsns)
		}
	}
	return -1
}

// insertBefore is bpf_patch_insn_data with a patch of n instructions
// followed by the one at off: every target past off moves with the code
// (bpf_adj_branches), but the instruction at off, copied into the patch,
// keeps its relative offset, so its target moves by n whatever it is; the
// functions starting after off move (adjust_subprog_starts).
func (p *fixupProg) insertBefore(off, n int) {
	moved := p.insns[off]
	prologue := make([]fixupInsn, n)
	for i := range prologue {
		prologue[i] = fixupInsn{orig: moved.orig, target: -1, seen: true}
	}
	for k := range p.insns {
		if k != off && p.insns[k].target > off {
			p.insns[k].target += n
		}
	}
	if p.insns[off].target >= 0 {
		p.insns[off].target += n
		p.insns[off].movedByPrologue = true
	}
	p.insns = slices.Insert(p.insns, off, prologue...)
	for k := range p.starts {
		if p.starts[k] > off {
			p.starts[k] += n
		}
	}
}

// markSeen records that a path reached instruction i, both slots of an
// ld_imm64 (do_check marks the second one after check_ld_imm). It runs at
// every insn the walk simulates: an insn already seen, almost all of
// them, costs one test (markSeen inlines; seen[i] is set only here).
func (e *env) markSeen(i int) {
	if !e.seen[i] {
		e.markSeenFirst(i)
	}
}

// markSeenFirst is markSeen for an insn not seen yet.
func (e *env) markSeenFirst(i int) {
	e.seen[i] = true
	if e.prog[i].IsLdImm64() && i+1 < len(e.seen) {
		e.seen[i+1] = true
	}
}
