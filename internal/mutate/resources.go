package mutate

import (
	"slices"
	"sync"

	"github.com/vercheck/vercheck/insn"
)

// This file holds operators written from outside against the kernel's
// rules for resources and calls, as someone reading check_kfunc_args,
// process_dynptr_func, process_iter_arg, process_spin_lock,
// check_reference_leak, the RCU and preemption sections, the callback
// checks and may_goto would write them: a call repeated with its
// argument set-up (a double release, destroy or unlock, a second new on
// a live iterator), dropped (a leak, a next without new, an unlock
// without lock), moved across its neighbours (next before new, use after
// release); other calls made just after one (inside a lock, an RCU or
// preemption section); an exit on some path at any point (a lock,
// reference, iterator or RCU section held); return values outside a
// callback's or program's range; the stack objects the program passes to
// calls exchanged, overwritten or read after they are made; constant
// arguments made variable; arguments exchanged; address space casts; and
// straight-line code wrapped in loops (may_goto and counted).

// A call block is a helper or kfunc call together with the instructions
// just before it that set its argument registers.

// writesArg reports whether in writes one of the argument registers
// r1-r5 (an ALU operation, a load or an ld_imm64, first slot).
func writesArg(in insn.Insn) bool {
	if in.Filler || in.Dst < insn.R1 || in.Dst > insn.R5 {
		return false
	}
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64:
		return true
	case insn.ClassLDX:
		return in.Mode() == insn.ModeMEM || in.Mode() == insn.ModeMEMSX
	case insn.ClassLD:
		return in.IsLdImm64()
	}
	return false
}

// isOuterCall reports whether in calls a helper or a kfunc.
func isOuterCall(in insn.Insn) bool {
	return !in.Filler && (in.IsHelperCall() || in.IsKfuncCall())
}

// callBlock returns the start of the call block ending with the call at
// i: the run of argument-setting instructions just before it.
func callBlock(prog []insn.Insn, i int) (int, bool) {
	if !isOuterCall(prog[i]) {
		return 0, false
	}
	start := i
	for k := i - 1; k >= 0; k-- {
		switch {
		case prog[k].Filler && k > 0 && writesArg(prog[k-1]):
			k--
		case !writesArg(prog[k]):
			return start, true
		}
		start = k
	}
	return start, true
}

// relocated returns the instructions of prog[from:to] copied to index pos
// of the program an insertion of n instructions at index at makes:
// relative jumps and function addresses among them are fixed to reach
// the same instructions as the originals.
func relocated(prog []insn.Insn, from, to, at, pos, n int) ([]insn.Insn, bool) {
	out := slices.Clone(prog[from:to])
	for k, in := range out {
		rel, ok := in.Relative()
		if !ok {
			continue
		}
		target := from + k + int(rel) + 1
		if target >= at {
			target += n
		}
		off := target - (pos + k) - 1
		if in.IsPseudoCall() || in.IsPseudoFunc() {
			out[k].Imm = int32(off)
			continue
		}
		if in.IsConditional() || in.Op == insn.ClassJMP|insn.JmpJA {
			return nil, false // jumps never belong to a call block
		}
	}
	return out, true
}

// scratchSlot returns the offset of an eight-byte stack slot below every
// stack address prog names (fp-relative accesses and "rX = r10; rX +=
// K" pairs), for the operators' own spills and for reads of uninitialised
// stack, which the kernel lets a privileged program make and gives an
// unknown scalar.
func scratchSlot(prog []insn.Insn) (int16, bool) {
	low := int32(0)
	for k, in := range prog {
		switch {
		case isMemAccess(in) && accessBase(in) == insn.R10:
			low = min(low, int32(in.Off))
		case k > 0 && isFrameAddress(prog[k-1], in):
			low = min(low, in.Imm)
		}
	}
	slot := low - 8 - (low%8+8)%8
	if slot < -512 {
		return 0, false
	}
	return int16(slot), true
}

// isFrameAddress reports whether add, following mov, computes a stack
// address: "rX = r10; rX += K".
func isFrameAddress(mov, add insn.Insn) bool {
	return mov.Op == insn.ClassALU64|insn.ALUMov|insn.SrcX && mov.Src == insn.R10 && mov.Off == 0 &&
		add.Op == insn.ClassALU64|insn.ALUAdd|insn.SrcK && add.Dst == mov.Dst
}

// stackArg is a stack address a call block passes: the argument register
// and the index and value of its "+= K".
type stackArg struct {
	reg uint8
	at  int
	off int32
}

// stackArgs returns the stack addresses the call block [start, i] passes.
func stackArgs(prog []insn.Insn, start, i int) []stackArg {
	var out []stackArg
	for k := start + 1; k < i; k++ {
		if isFrameAddress(prog[k-1], prog[k]) {
			out = append(out, stackArg{reg: prog[k].Dst, at: k, off: prog[k].Imm})
		}
	}
	return out
}

// programStackArgs returns the distinct stack offsets every call block of
// prog passes.
func programStackArgs(prog []insn.Insn) []int32 {
	var offs []int32
	for i := range prog {
		if start, ok := callBlock(prog, i); ok {
			for _, a := range stackArgs(prog, start, i) {
				offs = append(offs, a.off)
			}
		}
	}
	slices.Sort(offs)
	return slices.Compact(offs)
}

// Instruction shorthands of this file.
func movImm(dst uint8, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcK, Dst: dst, Imm: imm}
}

func movX(dst, src uint8) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: dst, Src: src}
}

func aluImm(op, dst uint8, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | op | insn.SrcK, Dst: dst, Imm: imm}
}

func load(size, dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | size, Dst: dst, Src: src, Off: off}
}

func store(size, dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | size, Dst: dst, Src: src, Off: off}
}

func storeImm(size, dst uint8, off int16, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassST | insn.ModeMEM | size, Dst: dst, Off: off, Imm: imm}
}

// callRepeat repeats a call block just after the call: a second release,
// destroy, unlock or submit of the same object, a second new on a live
// iterator or dynptr, a second acquire whose first reference leaks, a
// second lock; once with r0 kept in the scratch slot, so that the code
// after it still sees the first call's result.
func callRepeat(prog []insn.Insn, i int) []edit {
	start, ok := callBlock(prog, i)
	if !ok {
		return nil
	}
	n := i - start + 1
	var out []edit
	if block, ok := relocated(prog, start, i+1, i+1, i+1, n); ok {
		out = append(out, insertion(i+1, block...))
	}
	if slot, ok := scratchSlot(prog); ok {
		if block, ok := relocated(prog, start, i+1, i+1, i+2, n+2); ok {
			seq := append([]insn.Insn{store(insn.SizeDW, insn.R10, insn.R0, slot)}, block...)
			out = append(out, insertion(i+1, append(seq, load(insn.SizeDW, insn.R0, insn.R10, slot))...))
		}
	}
	return out
}

// callDrop deletes a call block, or its call only, leaving r0 = 0 in the
// call's place: a reference never released, an iterator used without
// its new or never destroyed, an unlock or rcu_read_unlock without its
// lock, a lock never released.
func callDrop(prog []insn.Insn, i int) []edit {
	start, ok := callBlock(prog, i)
	if !ok {
		return nil
	}
	out := []edit{rewrite(i, movImm(insn.R0, 0))}
	if start < i {
		out = append(out, edit{at: start, del: i - start + 1, repl: []insn.Insn{movImm(insn.R0, 0)}})
	}
	return out
}

// maxBlockMove is how many instructions callBlockMove moves a call block
// over.
const maxBlockMove = 8

// callBlockMove moves a call block up or down over one to maxBlockMove
// straight-line instructions, other call blocks included: an iterator's
// next before its new, a release before the last use of the reference,
// a use after it, a slice taken before its dynptr is made, an unlock
// before the accesses it protects.
func callBlockMove(prog []insn.Insn, i int) []edit {
	start, ok := callBlock(prog, i)
	if !ok {
		return nil
	}
	for k := start; k <= i; k++ {
		if prog[k].IsPseudoFunc() || !prog[k].Filler && !prog[k].IsLdImm64() && !movable(prog[k]) {
			return nil
		}
	}
	var out []edit
	for d := 1; d <= maxBlockMove; d++ {
		if e, ok := blockMoved(prog, start, i+1, start-d); ok {
			out = append(out, e)
		}
		if e, ok := blockMoved(prog, start, i+1, i+1+d); ok {
			out = append(out, e)
		}
	}
	return out
}

// blockMoved returns the edit moving prog[from:to] so that it starts at
// index at (before the move) when at < from, or ends at index at when at
// > to, when every instruction it crosses may be moved over and no
// ld_imm64 is split.
func blockMoved(prog []insn.Insn, from, to, at int) (edit, bool) {
	lo, hi := min(from, at), max(to, at)
	if lo < 0 || hi > len(prog) || splitsLdImm64(prog, lo) || splitsLdImm64(prog, hi) {
		return edit{}, false
	}
	crossed := slices.Concat(prog[lo:from], prog[to:hi])
	for _, in := range crossed {
		if !in.Filler && !in.IsLdImm64() && !movable(in) {
			return edit{}, false
		}
		if in.IsPseudoFunc() {
			return edit{}, false
		}
	}
	var seq []insn.Insn
	if at < from {
		seq = slices.Concat(prog[from:to], prog[lo:from])
	} else {
		seq = slices.Concat(prog[to:hi], prog[from:to])
	}
	return edit{at: lo, del: hi - lo, repl: seq}, true
}

// argFreeHelpers are helpers that take no argument: the kernel checks the
// call itself (inside a lock, in a sleepable or non-sleepable section)
// before any argument.
var argFreeHelpers = []int32{5, 7, 8, 14, 118, 12, 125}

// callInsert inserts, just after a call, another call: each helper that
// takes no argument (plus bpf_tail_call, whose argument checks come
// after its lock and reference checks), each kfunc of the object (the
// rcu_read_lock, preempt_disable pairs and their opposites take none)
// and each subprogram of the program, bare (r1-r5 are scratch after a
// call) and with r0 kept in the scratch slot: calls inside a spin lock
// region, an RCU or preemption section, nested or unbalanced sections.
func callInsert(env Env, prog []insn.Insn, i int) []edit {
	if !isOuterCall(prog[i]) {
		return nil
	}
	var calls []insn.Insn
	for _, id := range argFreeHelpers {
		calls = append(calls, insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Imm: id})
	}
	for _, k := range kfuncsOf(env, prog) {
		calls = append(calls, k)
	}
	slot, spill := scratchSlot(prog)
	var out []edit
	for _, c := range calls {
		out = append(out, insertion(i+1, c))
		if spill {
			out = append(out, insertion(i+1, store(insn.SizeDW, insn.R10, insn.R0, slot), c, load(insn.SizeDW, insn.R0, insn.R10, slot)))
		}
	}
	for _, s := range subprogStarts(prog) {
		if s == 0 {
			continue
		}
		// The call lands at i+1 and the insertion moves s by one when s > i.
		target := s
		if s > i {
			target++
		}
		out = append(out, insertion(i+1, insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Src: insn.PseudoCall, Imm: int32(target - i - 2)}))
	}
	return out
}

// kfuncsOf returns the distinct kfunc calls of prog and env.
func kfuncsOf(env Env, prog []insn.Insn) []insn.Insn {
	type kfunc struct {
		id     int32
		module int16
	}
	seen := map[kfunc]bool{}
	var out []insn.Insn
	for _, c := range slices.Concat(prog, env.Kfuncs) {
		k := kfunc{c.Imm, c.Off}
		if c.IsKfuncCall() && !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// analysed caches the control-flow facts of the last program the
// liveness-based operators looked at: Mutate asks them about one program
// many times in a row.
var analysed struct {
	sync.Mutex
	prog []insn.Insn
	cfg  *insn.CFG
}

// liveMask returns the registers some path reads at or after
// instruction i before writing them, bit r for register r (the kernel's
// live_regs_before), when prog passes the load-time checks.
func liveMask(prog []insn.Insn, i int) (uint16, bool) {
	analysed.Lock()
	defer analysed.Unlock()
	if !slices.Equal(analysed.prog, prog) {
		analysed.prog = slices.Clone(prog)
		analysed.cfg, _ = insn.Analyze(prog)
	}
	if analysed.cfg == nil {
		return 0, false
	}
	return analysed.cfg.LiveRegsBefore(i), true
}

// deadReg returns a register of r0-r9 that no path reads at or after
// instruction i before writing it, preferring the callee-saved ones.
func deadReg(prog []insn.Insn, i int) (uint8, bool) {
	live, ok := liveMask(prog, i)
	if !ok {
		return 0, false
	}
	for _, r := range []uint8{insn.R9, insn.R8, insn.R7, insn.R6, insn.R5, insn.R4, insn.R3, insn.R2, insn.R1, insn.R0} {
		if live&(1<<r) == 0 {
			return r, true
		}
	}
	return 0, false
}

// earlyExit inserts before instruction i an exit taken on some paths: a
// dead register takes an unknown byte from the uninitialised scratch
// slot and "if d != 0" jumps over "r0 = 0; exit". Whatever is held at i
// is held at that exit: a spin lock, a reference, an iterator, an RCU or
// preemption section, in the main program or a subprogram.
func earlyExit(prog []insn.Insn, i int) []edit {
	if prog[i].Filler {
		return nil
	}
	slot, ok := scratchSlot(prog)
	if !ok {
		return nil
	}
	d, ok := deadReg(prog, i)
	if !ok {
		return nil
	}
	return []edit{insertion(i,
		load(insn.SizeB, d, insn.R10, slot),
		insn.Insn{Op: insn.ClassJMP | insn.JmpJNE | insn.SrcK, Dst: d, Off: 2},
		movImm(insn.R0, 0),
		insn.Insn{Op: insn.ClassJMP | insn.JmpExit})}
}

// returnValues are the constants returnValue sets r0 to.
var returnValues = []int32{2, 3, -2, 4096, 0x7fffffff}

// returnValue sets r0 just before an exit to a value at or past the edge
// of the ranges the kernel enforces on callbacks (check_return_code: 0
// or 1 for bpf_loop and the iterator callbacks, 0 for timers, [0, 1] for
// the rbtree less callback) and programs: constants, a value known only
// in its low 32 bits, 2^32, and unknown values masked to [0, 1] and [0,
// 3].
func returnValue(prog []insn.Insn, i int) []edit {
	if prog[i].Filler || prog[i].Op != insn.ClassJMP|insn.JmpExit {
		return nil
	}
	var out []edit
	for _, k := range returnValues {
		out = append(out, insertion(i, movImm(insn.R0, k)))
	}
	out = append(out,
		insertion(i, insn.Insn{Op: insn.ClassALU | insn.ALUMov | insn.SrcK, Dst: insn.R0, Imm: -1}),
		insertion(i, insn.Insn{Op: insn.ClassLD | insn.ModeIMM | insn.SizeDW, Dst: insn.R0, Imm: 1}, insn.Insn{Filler: true, Imm2: 1}))
	if slot, ok := scratchSlot(prog); ok {
		for _, mask := range []int32{1, 3} {
			out = append(out, insertion(i, load(insn.SizeB, insn.R0, insn.R10, slot), aluImm(insn.ALUAnd, insn.R0, mask)))
		}
	}
	return out
}

// pointerReturn sets r0 just before an exit to another register, r10
// and the context included: a pointer where a callback must return a
// scalar (prepare_func_exit's "R0 not a scalar value"), a program returns
// a known value (check_return_code) or a subprogram hands its caller a
// pointer into its own frame.
func pointerReturn(prog []insn.Insn, i int) []edit {
	if prog[i].Filler || prog[i].Op != insn.ClassJMP|insn.JmpExit {
		return nil
	}
	var out []edit
	for r := insn.R1; r <= insn.R10; r++ {
		out = append(out, insertion(i, movX(insn.R0, r)))
	}
	return out
}

// stackObjectShifts are the distances stackObjectArg moves a stack
// argument by: one slot, two slots (past a 16-byte dynptr, onto the next
// iterator).
var stackObjectShifts = []int32{-16, -8, 8, 16}

// stackObjectArg hands a call another of the program's stack objects:
// a stack address the call passes is replaced by every other stack
// address the program passes to a call and by itself moved a slot or
// two, and an argument that was no stack address becomes each of them. A
// dynptr where an iterator is expected, an iterator of another type, the
// second half of a dynptr, a buffer that overlaps an object, the
// kernel's process_dynptr_func, process_iter_arg and
// check_mem_size_reg decide.
func stackObjectArg(prog []insn.Insn, i int) []edit {
	start, ok := callBlock(prog, i)
	if !ok {
		return nil
	}
	offs := programStackArgs(prog)
	args := stackArgs(prog, start, i)
	var out []edit
	passed := map[uint8]bool{}
	for _, a := range args {
		passed[a.reg] = true
		cands := slices.Clone(offs)
		for _, d := range stackObjectShifts {
			cands = append(cands, a.off+d)
		}
		for _, k := range cands {
			if k != a.off && k < 0 && k >= -512 {
				v := prog[a.at]
				v.Imm = k
				out = append(out, rewrite(a.at, v))
			}
		}
	}
	for r := insn.R1; r <= insn.R5; r++ {
		if passed[r] {
			continue
		}
		for _, k := range offs {
			out = append(out, insertion(i, movX(r, insn.R10), aluImm(insn.ALUAdd, r, k)))
		}
	}
	return out
}

// maxLaterCalls is how many later calls stackObjectOverwrite also
// places its write after.
const maxLaterCalls = 3

// stackObjectOverwrite writes over part of a stack object a call was
// given, or reads it, just after that call and after the next few
// calls: an eight-byte or one-byte store of a constant, a spilled
// pointer over its first slot, a four-byte store in the middle, and an
// eight-byte read into r1 (scratch after a call). A dynptr partly
// overwritten is destroyed and its slices with it, an iterator's slots
// may not be written at all (the kernel's check_stack_write_fixed_off,
// destroy_if_dynptr_stack_slot), and reads of either are refused.
func stackObjectOverwrite(prog []insn.Insn, i int) []edit {
	start, ok := callBlock(prog, i)
	if !ok {
		return nil
	}
	args := stackArgs(prog, start, i)
	if len(args) == 0 {
		return nil
	}
	places := []int{i + 1}
	for k := i + 1; k < len(prog) && len(places) <= maxLaterCalls; k++ {
		if isOuterCall(prog[k]) {
			places = append(places, k+1)
		}
	}
	var out []edit
	for _, a := range args {
		if a.off < -512 || a.off > -8 {
			continue
		}
		o := int16(a.off)
		writes := []insn.Insn{
			storeImm(insn.SizeDW, insn.R10, o, 0), storeImm(insn.SizeDW, insn.R10, o+8, 0),
			storeImm(insn.SizeB, insn.R10, o, 0), storeImm(insn.SizeB, insn.R10, o+7, 0),
			storeImm(insn.SizeB, insn.R10, o+8, 0), storeImm(insn.SizeB, insn.R10, o+15, 0),
			storeImm(insn.SizeW, insn.R10, o+4, 0), store(insn.SizeDW, insn.R10, insn.R10, o),
			load(insn.SizeDW, insn.R1, insn.R10, o),
		}
		for _, at := range places {
			if at > len(prog) {
				continue
			}
			for _, w := range writes {
				if w.Off < 0 {
					out = append(out, insertion(at, w))
				}
			}
		}
	}
	return out
}

// varConstArg makes a constant argument of a call variable: its "rA =
// K" becomes an unknown byte from the scratch slot ANDed with K (a range
// [0, K], zero included), the same plus one (one past the edge) or minus
// one (a negative minimum: "min value is negative"), the whole byte, or
// the byte sign-extended ([-128, 127]). Sizes of memory arguments (check_mem_size_reg), the
// constants a kfunc needs known (__k, __szk), iterator bounds.
func varConstArg(prog []insn.Insn, i int) []edit {
	start, ok := callBlock(prog, i)
	if !ok {
		return nil
	}
	slot, ok := scratchSlot(prog)
	if !ok {
		return nil
	}
	var out []edit
	for k := start; k < i; k++ {
		in := prog[k]
		if in.Op != insn.ClassALU64|insn.ALUMov|insn.SrcK && in.Op != insn.ClassALU|insn.ALUMov|insn.SrcK {
			continue
		}
		r := in.Dst
		unknown := load(insn.SizeB, r, insn.R10, slot)
		signed := unknown
		signed.Op = insn.ClassLDX | insn.ModeMEMSX | insn.SizeB
		out = append(out,
			edit{at: k, del: 1, repl: []insn.Insn{unknown, aluImm(insn.ALUAnd, r, in.Imm)}},
			edit{at: k, del: 1, repl: []insn.Insn{unknown, aluImm(insn.ALUAnd, r, in.Imm), aluImm(insn.ALUAdd, r, 1)}},
			edit{at: k, del: 1, repl: []insn.Insn{unknown}},
			edit{at: k, del: 1, repl: []insn.Insn{signed}},
			edit{at: k, del: 1, repl: []insn.Insn{unknown, aluImm(insn.ALUAnd, r, in.Imm), aluImm(insn.ALUAdd, r, -1)}})
	}
	return out
}

// argSwap exchanges two argument registers just before a call, through
// r0 (which the call overwrites): a kfunc's arguments each in the
// other's register, a size before its buffer, a map after its key.
func argSwap(prog []insn.Insn, i int) []edit {
	if prog[i].Filler || prog[i].Op != insn.ClassJMP|insn.JmpCall {
		return nil
	}
	var out []edit
	for a := insn.R1; a <= insn.R5; a++ {
		for b := a + 1; b <= insn.R5; b++ {
			out = append(out, insertion(i, movX(insn.R0, a), movX(a, b), movX(b, insn.R0)))
		}
	}
	return out
}

// Address space casts (BPF_ADDR_SPACE_CAST in the off field of a mov):
// imm 1 casts an arena pointer to a kernel one, 1 << 16 back.
const (
	addrSpaceCastOff = 1
	castToKernel     = 1
	castToArena      = 1 << 16
)

// isAddrSpaceCast reports whether in is an address space cast.
func isAddrSpaceCast(in insn.Insn) bool {
	return in.Op == insn.ClassALU64|insn.ALUMov|insn.SrcX && in.Off == addrSpaceCastOff
}

// addrSpaceCast rewrites an address space cast with every other
// direction and invalid imm, and inserts both casts before an
// instruction on each register it uses: casts of a non-arena pointer, of
// a scalar in a program without an arena, a second cast.
func addrSpaceCast(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler {
		return nil
	}
	var out []edit
	if isAddrSpaceCast(in) {
		for _, imm := range []int32{castToKernel, castToArena, 0, 2, castToArena | castToKernel} {
			if imm != in.Imm {
				v := in
				v.Imm = imm
				out = append(out, rewrite(i, v))
			}
		}
		return out
	}
	for _, r := range usedRegs(in) {
		for _, imm := range []int32{castToKernel, castToArena} {
			out = append(out, insertion(i, insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: r, Src: r, Off: addrSpaceCastOff, Imm: imm}))
		}
	}
	return out
}

// loopLengths are the lengths of the straight-line runs loopWrap wraps.
var loopLengths = []int{1, 2, 4, 8}

// loopBounds are the trip counts of loopWrap's counted loops.
var loopBounds = []int32{2, 5, 33}

// loopWrap wraps a run of straight-line instructions starting at i in a
// loop: "may_goto +1; goto start" after it (the kernel's may_goto budget,
// its convergence of loop states and widening), and a counted loop on a
// dead register (d = 0 before, "d += 1; if d < N goto start" after:
// bounded loops the kernel unrolls, with the body's effects repeated:
// acquires, locks, stack writes, pointer arithmetic).
func loopWrap(prog []insn.Insn, i int) []edit {
	var out []edit
	for _, n := range loopLengths {
		if i+n > len(prog) || splitsLdImm64(prog, i) || splitsLdImm64(prog, i+n) {
			break
		}
		body := prog[i : i+n]
		if slices.ContainsFunc(body, func(in insn.Insn) bool { return !in.Filler && !in.IsLdImm64() && !movable(in) || in.IsPseudoFunc() }) {
			break
		}
		back := int16(-(n + 2))
		out = append(out, edit{at: i, del: n, repl: slices.Concat(body, []insn.Insn{mayGotoInsn(1), gotoInsn(back)})})
		d, ok := deadReg(prog, i)
		if !ok || slices.ContainsFunc(body, func(in insn.Insn) bool { return touches(in, d) }) {
			continue
		}
		for _, bound := range loopBounds {
			out = append(out, edit{at: i, del: n, repl: slices.Concat([]insn.Insn{movImm(d, 0)}, body, []insn.Insn{
				aluImm(insn.ALUAdd, d, 1),
				{Op: insn.ClassJMP | insn.JmpJLT | insn.SrcK, Dst: d, Imm: bound, Off: back},
			})})
		}
	}
	return out
}

// touches reports whether in names register r or, as a call, may read
// or clobber it.
func touches(in insn.Insn, r uint8) bool {
	if in.Filler {
		return false
	}
	if in.Op == insn.ClassJMP|insn.JmpCall {
		return r <= insn.R5
	}
	return in.Dst == r || in.Src == r
}

// liveRegs returns the registers r0-r9 some path reads at or after
// instruction i before writing them, with a dead one of r0-r9 for the
// caller's scratch use.
func liveRegs(prog []insn.Insn, i int) (live []uint8, dead uint8, ok bool) {
	dead, ok = deadReg(prog, i)
	if !ok {
		return nil, 0, false
	}
	mask, _ := liveMask(prog, i)
	for r := insn.R0; r <= insn.R9; r++ {
		if mask&(1<<r) != 0 {
			live = append(live, r)
		}
	}
	return live, dead, true
}

// splitValues are the constants pathSplit gives a register on one path.
var splitValues = []int32{0, 1, -1, 0x7fffffff}

// pathSplit makes a live register's value depend on the path just before
// instruction i: an unknown byte from the scratch slot in a dead
// register decides whether a constant, the frame pointer or another live
// register's value replaces it, and the two paths meet at i. Pruning
// must tell the states apart wherever the difference matters later (the
// kernel's states_equal, regsafe with its precision and liveness,
// stacksafe for a spilled copy): a pointer on one path and a scalar on
// the other, two pointers of different kinds, bounds that differ.
func pathSplit(prog []insn.Insn, i int) []edit {
	if prog[i].Filler {
		return nil
	}
	slot, ok := scratchSlot(prog)
	if !ok {
		return nil
	}
	live, d, ok := liveRegs(prog, i)
	if !ok {
		return nil
	}
	var out []edit
	split := func(set insn.Insn) {
		out = append(out, insertion(i,
			load(insn.SizeB, d, insn.R10, slot),
			insn.Insn{Op: insn.ClassJMP | insn.JmpJNE | insn.SrcK, Dst: d, Off: 1},
			set))
	}
	for _, r := range live {
		for _, k := range splitValues {
			split(movImm(r, k))
		}
		split(movX(r, insn.R10))
		for _, o := range live {
			if o != r {
				split(movX(r, o))
			}
		}
	}
	return out
}

// preserved wraps seq so that the caller-saved registers live after it
// (live, a mask as liveMask's) keep their values: each is stored in its
// own slot from slot downwards before seq and loaded back after it.
func preserved(seq []insn.Insn, live uint16, slot int16) ([]insn.Insn, bool) {
	var saves, loads []insn.Insn
	at := slot
	for r := insn.R0; r <= insn.R5; r++ {
		if live&(1<<r) == 0 {
			continue
		}
		if at < -512 {
			return nil, false
		}
		saves = append(saves, store(insn.SizeDW, insn.R10, r, at))
		loads = append(loads, load(insn.SizeDW, r, insn.R10, at))
		at -= 8
	}
	return slices.Concat(saves, seq, loads), true
}

// loadedPointerArg passes the result of an eight-byte load to each kfunc
// of the object just after the load, keeping the live caller-saved
// registers on the stack around the call: a pointer read from a map
// value (a kptr, RCU-protected or untrusted), from a BTF object (a
// trusted field, an untrusted walk), from the context (a tracing
// program's arguments) or from the stack, where check_kfunc_args wants a
// trusted, referenced or RCU pointer of one type.
func loadedPointerArg(env Env, prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || in.Op != insn.ClassLDX|insn.ModeMEM|insn.SizeDW || i+1 >= len(prog) {
		return nil
	}
	kfuncs := kfuncsOf(env, prog)
	if len(kfuncs) == 0 {
		return nil
	}
	slot, ok := scratchSlot(prog)
	if !ok {
		return nil
	}
	live, ok := liveMask(prog, i+1)
	if !ok {
		return nil
	}
	var out []edit
	for _, k := range kfuncs {
		if seq, ok := preserved([]insn.Insn{movX(insn.R1, in.Dst), k}, live, slot); ok {
			out = append(out, insertion(i+1, seq...))
		}
	}
	return out
}

// ctxWindow is how far into the main program savedCtx looks for the
// context's copy.
const ctxWindow = 4

// savedCtx returns the callee-saved register the main program copies the
// context into at its start ("rX = r1" among its first instructions) and
// never writes again.
func savedCtx(prog []insn.Insn) (uint8, bool) {
	for k := 0; k < min(ctxWindow, len(prog)); k++ {
		in := prog[k]
		if in != movX(in.Dst, insn.R1) || in.Dst < insn.R6 || in.Dst > insn.R9 {
			continue
		}
		for j, other := range prog {
			if j != k && !other.Filler && other.Class() != insn.ClassJMP && other.Class() != insn.ClassJMP32 &&
				other.Class() != insn.ClassST && other.Class() != insn.ClassSTX && other.Dst == in.Dst {
				return 0, false
			}
		}
		return in.Dst, true
	}
	return 0, false
}

// tailCallInsert inserts a tail call just after a call, through each of
// the object's program arrays with the context the program saved at its
// start, bare and with r0 kept in the scratch slot: a tail call with a
// reference, a lock, an RCU or preemption section or an iterator held
// (check_resource_leak's "tail_call" case), from a subprogram, from a
// callback.
func tailCallInsert(env Env, prog []insn.Insn, i int) []edit {
	if !isOuterCall(prog[i]) || len(env.ProgArrays) == 0 {
		return nil
	}
	ctx, ok := savedCtx(prog)
	if !ok {
		return nil
	}
	slot, spill := scratchSlot(prog)
	var out []edit
	for _, m := range env.ProgArrays {
		seq := []insn.Insn{movX(insn.R1, ctx),
			{Op: insn.ClassLD | insn.ModeIMM | insn.SizeDW, Dst: insn.R2, Src: insn.PseudoMapFD, Imm: m}, {Filler: true},
			movImm(insn.R3, 0), {Op: insn.ClassJMP | insn.JmpCall, Imm: insn.HelperTailCall}}
		out = append(out, insertion(i+1, seq...))
		if spill {
			seq = slices.Concat([]insn.Insn{store(insn.SizeDW, insn.R10, insn.R0, slot)}, seq, []insn.Insn{load(insn.SizeDW, insn.R0, insn.R10, slot)})
			out = append(out, insertion(i+1, seq...))
		}
	}
	return out
}

// entryOffsets are the offsets callbackEntry reads its arguments at.
var entryOffsets = []int16{0, -1, 8, 4095}

// callbackEntry inserts at the start of each subprogram (callbacks
// included) a read through each argument register at edge offsets and a
// write of a byte through it: arguments a callback does not get (R3 of a
// bpf_loop callback is no pointer), a context it may only read, a map
// value past its end, the caller's stack through bpf_loop's context.
func callbackEntry(prog []insn.Insn, i int) []edit {
	if i == 0 || !slices.Contains(subprogStarts(prog), i) {
		return nil
	}
	var out []edit
	for r := insn.R1; r <= insn.R5; r++ {
		for _, off := range entryOffsets {
			out = append(out, insertion(i, load(insn.SizeB, insn.R0, r, off)))
		}
		out = append(out, insertion(i, storeImm(insn.SizeB, r, 0, 0)))
	}
	return out
}
