package mutate

import (
	"math"
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// This file holds the operators written from the outside, as someone
// who knows the kernel's rules but not vercheck's code would write them:
// bounds refined at the edges of a range just before a register is used,
// chains of arithmetic on scalars with edge constants, spills and fills
// of other widths at other offsets, stack accesses at variable offsets,
// other registers and stack addresses handed to calls, calls repeated or
// followed by a read through their argument, and instructions moved a
// few places (across a lock, a release, a NULL check).

// condOps are the conditional jump operations.
var condOps = []uint8{insn.JmpJEQ, insn.JmpJNE, insn.JmpJGT, insn.JmpJGE, insn.JmpJLT, insn.JmpJLE,
	insn.JmpJSGT, insn.JmpJSGE, insn.JmpJSLT, insn.JmpJSLE, insn.JmpJSET}

// guardConstants are the constants rangeGuard compares with: the edges of
// the unsigned and signed ranges of 8, 16, 32 and 64-bit values, and
// small sizes.
var guardConstants = []int32{0, 1, -1, 7, 8, 255, 256, 0xffff, 4096, math.MaxInt32, math.MinInt32}

// guardExit is "r0 = 0; exit", the path a rangeGuard sends the values
// outside its range to.
var guardExit = []insn.Insn{
	{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcK, Dst: insn.R0},
	{Op: insn.ClassJMP | insn.JmpExit},
}

// withValueEdges adds to consts the value sizes of env's maps and one
// less, the constants that make an offset land on the last byte of a
// value or just past it.
func withValueEdges(consts []int32, env Env) []int32 {
	out := slices.Clone(consts)
	for _, vs := range env.ValueSizes {
		if vs > 0 {
			out = append(out, int32(vs)-1, int32(vs))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// rangeGuard inserts, before instruction i, a compare of a register i
// uses with a constant at the edge of a range, 64 or 32 bits wide, signed
// or unsigned, which leaves the program (r0 = 0; exit) unless it holds:
// i then runs with the register's bounds narrowed by the kernel's branch
// refinement (reg_set_min_max), at exactly the range edge. An offset or
// size computed from it reaches its object's edge; a compare of a pointer
// with a constant is refined differently or refused.
func rangeGuard(env Env, prog []insn.Insn, i int) []edit {
	consts := withValueEdges(guardConstants, env)
	var out []edit
	for _, r := range usedRegs(prog[i]) {
		for _, class := range []uint8{insn.ClassJMP, insn.ClassJMP32} {
			for _, op := range condOps {
				for _, k := range consts {
					guard := insn.Insn{Op: class | op | insn.SrcK, Dst: r, Imm: k, Off: int16(len(guardExit))}
					out = append(out, insertion(i, append([]insn.Insn{guard}, guardExit...)...))
				}
			}
		}
	}
	return out
}

// aluEdgeConstants are the operands of scalarEdgeALU.
var aluEdgeConstants = []int32{0, 1, -1, 2, 3, 7, 8, 31, 32, 63, 0xff, 0xffff, math.MaxInt32, math.MinInt32}

// scalarEdgeALU inserts before instruction i one operation on a register
// i uses: every ALU operation, 64 and 32 bits wide, with each edge
// constant (shifts by every valid amount at the width's edges, divisions
// and modulo by 0, -1 and INT_MIN, signed ones included), negation,
// sign extension of its low 8, 16 or 32 bits, and zero extension of the
// low half. Mutants chain them with rangeGuard: the bounds of an offset
// computed through and/or/xor/shift/mul/div/neg/movsx just before its use.
func scalarEdgeALU(prog []insn.Insn, i int) []edit {
	var out []edit
	for _, r := range usedRegs(prog[i]) {
		for _, v := range edgeALUs(r) {
			out = append(out, insertion(i, v))
		}
	}
	return out
}

// edgeALUs returns the operations scalarEdgeALU inserts on register r.
func edgeALUs(r uint8) []insn.Insn {
	var out []insn.Insn
	for _, class := range []uint8{insn.ClassALU64, insn.ClassALU} {
		out = append(out, insn.Insn{Op: class | insn.ALUNeg, Dst: r})
		for _, op := range aluOps {
			if op == insn.ALUMov {
				continue
			}
			for _, k := range aluEdgeConstants {
				out = append(out, insn.Insn{Op: class | op, Dst: r, Imm: k})
				if op == insn.ALUDiv || op == insn.ALUMod {
					out = append(out, insn.Insn{Op: class | op, Dst: r, Imm: k, Off: 1})
				}
			}
		}
		for _, w := range movsxWidths {
			if class == insn.ClassALU && w == 32 {
				continue
			}
			out = append(out, insn.Insn{Op: class | insn.ALUMov | insn.SrcX, Dst: r, Src: r, Off: w})
		}
	}
	return append(out, insn.Insn{Op: insn.ClassALU | insn.ALUMov | insn.SrcX, Dst: r, Src: r})
}

// partialSlots are the stack slots partialSpill uses: the lowest one,
// which the program seldom uses, and the highest, which it often does.
var partialSlots = []int16{roundTripSlot, -stackSlotSize}

// partialSpill inserts, before instruction i, a store of a register i
// uses into a stack slot at one width and place and a load of it back at
// another: a pointer spilled through its low bytes, a fill wider than
// the spill (bytes of the slot the program left uninitialised or gave
// another value), a narrow fill of the high bytes of a spilled pointer or
// constant, a misaligned fill. The kernel's check_stack_write_fixed_off
// and check_stack_read_fixed_off decide which of them keep a spill.
func partialSpill(prog []insn.Insn, i int) []edit {
	var out []edit
	for _, r := range usedRegs(prog[i]) {
		for _, slot := range partialSlots {
			for _, st := range slotPlaces() {
				for _, ld := range slotPlaces() {
					if st == ld {
						continue
					}
					out = append(out, insertion(i,
						insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | st.size, Dst: insn.R10, Src: r, Off: slot + st.at},
						insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | ld.size, Dst: r, Src: insn.R10, Off: slot + ld.at},
					))
				}
			}
		}
	}
	return out
}

// slotPlace is an access of one size at one offset inside a stack slot.
type slotPlace struct {
	size uint8
	at   int16
}

// slotPlaces are the low and high aligned places of each width in a slot,
// and one misaligned place.
func slotPlaces() []slotPlace {
	out := []slotPlace{{insn.SizeDW, 0}, {insn.SizeW, 2}}
	for _, size := range []uint8{insn.SizeB, insn.SizeH, insn.SizeW} {
		w := (&insn.Insn{Op: size}).SizeBytes()
		out = append(out, slotPlace{size, 0}, slotPlace{size, int16(stackSlotSize - w)})
	}
	return out
}

// writesR0Only reports whether in overwrites r0 without reading it (a
// call, or a load or move into r0 from elsewhere): r0 is free for
// scratch work just before it.
func writesR0Only(in insn.Insn) bool {
	if in.Filler {
		return false
	}
	if in.Op == insn.ClassJMP|insn.JmpCall {
		return true
	}
	if in.Dst != insn.R0 || in.Mode() == insn.ModeATOMIC {
		return false
	}
	switch in.Class() {
	case insn.ClassLDX:
		return in.Src != insn.R0
	case insn.ClassLD:
		return in.IsLdImm64()
	case insn.ClassALU, insn.ClassALU64:
		return in.ALUOp() == insn.ALUMov && (!in.SrcIsReg() || in.Src != insn.R0)
	}
	return false
}

// varStackShapes are the masks of the variable part of varStackAccess's
// offsets.
var varStackMasks = []int32{7, 63, 511}

// varStackAccess inserts, where r0 is free (writesR0Only), a stack access
// at a variable offset: r0 = rX & mask, moved down by a constant so that
// the range of offsets ends exactly at the frame pointer's edge (its last
// byte, or one past it) or starts exactly at the bottom of the stack (its
// first byte or one below), then added to the frame pointer and used for
// a one- or eight-byte load or store. The kernel's check_stack_access_within_bounds,
// check_stack_read_var_off (every byte in range initialised) and
// check_stack_write_var_off (spills in range made plain data) apply.
func varStackAccess(prog []insn.Insn, i int) []edit {
	if !writesR0Only(prog[i]) {
		return nil
	}
	var out []edit
	for x := insn.R1; x <= insn.R9; x++ {
		for _, mask := range varStackMasks {
			for _, size := range []uint8{insn.SizeB, insn.SizeDW} {
				w := int32((&insn.Insn{Op: size}).SizeBytes())
				for _, down := range []int32{mask + w, mask + w - 1, -roundTripSlot, -roundTripSlot + 1} {
					for _, access := range varStackAccesses(size) {
						out = append(out, insertion(i,
							insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: insn.R0, Src: x},
							insn.Insn{Op: insn.ClassALU64 | insn.ALUAnd | insn.SrcK, Dst: insn.R0, Imm: mask},
							insn.Insn{Op: insn.ClassALU64 | insn.ALUSub | insn.SrcK, Dst: insn.R0, Imm: down},
							insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: insn.R0, Src: insn.R10},
							access,
						))
					}
				}
			}
		}
	}
	return out
}

// varStackAccesses are the accesses through r0 varStackAccess ends with:
// a load into r0, a store of r6 and a store of an immediate.
func varStackAccesses(size uint8) []insn.Insn {
	return []insn.Insn{
		{Op: insn.ClassLDX | insn.ModeMEM | size, Dst: insn.R0, Src: insn.R0},
		{Op: insn.ClassSTX | insn.ModeMEM | size, Dst: insn.R0, Src: insn.R6},
		{Op: insn.ClassST | insn.ModeMEM | size, Dst: insn.R0, Imm: 1},
	}
}

// argStackOffsets are the frame pointer offsets callArgument passes.
var argStackOffsets = []int32{-1, -4, -8, -16, -64, -256, -504, -511, -512}

// argMoves are the distances callArgument moves an argument by.
var argMoves = []int32{-1, 1, 4, 8}

// callArgument changes one argument register of a helper, kfunc or
// bpf-to-bpf call just before it: another register's value (the context
// saved in r6, a packet pointer, a map value, a maybe-NULL result left in
// r0, a released reference, another argument), a stack address at each
// depth (bytes the program never initialised, the bottom of the stack,
// part of a slot), or the argument moved a few bytes (a map value or
// buffer at its edge, a context pointer off its start). The kernel's
// check_func_arg and check_kfunc_args decide by type, offset and
// initialisation.
func callArgument(prog []insn.Insn, i int) []edit {
	if prog[i].Filler || prog[i].Op != insn.ClassJMP|insn.JmpCall {
		return nil
	}
	var out []edit
	for a := insn.R1; a <= insn.R5; a++ {
		for r := insn.R0; r <= insn.R9; r++ {
			if r != a {
				out = append(out, insertion(i, insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: a, Src: r}))
			}
		}
		for _, off := range argStackOffsets {
			out = append(out, insertion(i,
				insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: a, Src: insn.R10},
				insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcK, Dst: a, Imm: off}))
		}
		for _, d := range argMoves {
			out = append(out, insertion(i, insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcK, Dst: a, Imm: d}))
		}
	}
	return out
}

// Stack slots callAgain saves arguments in, below the program's own.
const (
	saveSlotR1 = roundTripSlot
	saveSlotR2 = roundTripSlot + stackSlotSize
)

// callAgain rewrites a helper or kfunc call so that its first argument
// (or its first two) is saved on the stack before it and reloaded after
// it, then either calls it again (a double release, a second acquire
// whose reference leaks, a lock taken twice) or reads through the
// reloaded argument (a use after release: the kernel's release_reference
// invalidates every copy of the reference, spilled ones included).
func callAgain(prog []insn.Insn, i int) []edit {
	call := prog[i]
	if call.Filler || !(call.IsHelperCall() || call.IsKfuncCall()) {
		return nil
	}
	save1 := insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | insn.SizeDW, Dst: insn.R10, Src: insn.R1, Off: saveSlotR1}
	save2 := insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | insn.SizeDW, Dst: insn.R10, Src: insn.R2, Off: saveSlotR2}
	load1 := insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | insn.SizeDW, Dst: insn.R1, Src: insn.R10, Off: saveSlotR1}
	load2 := insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | insn.SizeDW, Dst: insn.R2, Src: insn.R10, Off: saveSlotR2}
	use := insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | insn.SizeB, Dst: insn.R1, Src: insn.R1}
	return []edit{
		{at: i, del: 1, repl: []insn.Insn{save1, call, load1, call}},
		{at: i, del: 1, repl: []insn.Insn{save1, save2, call, load1, load2, call}},
		{at: i, del: 1, repl: []insn.Insn{save1, call, load1, use}},
	}
}

// maxMove is how far moveInsn moves an instruction.
const maxMove = 4

// moveInsn moves instruction i two to maxMove places up or down over
// straight-line code (swap moves it by one): a store or load carried
// across a bpf_spin_lock or rcu_read_lock call or out of the section, a
// use carried before a NULL check's effect or after a release, an
// argument set after its call.
func moveInsn(prog []insn.Insn, i int) []edit {
	if !movable(prog[i]) {
		return nil
	}
	var out []edit
	for d := 2; d <= maxMove; d++ {
		if e, ok := moved(prog, i, i+d); ok {
			out = append(out, e)
		}
		if e, ok := moved(prog, i, i-d); ok {
			out = append(out, e)
		}
	}
	return out
}

// movable reports whether in may be moved over or moved by moveInsn: a
// swappable instruction that does not end the path (moved past an exit,
// an instruction is only unreachable).
func movable(in insn.Insn) bool {
	return swappable(in) && in.Op != insn.ClassJMP|insn.JmpExit
}

// moved returns the edit taking instruction from to index to, when every
// instruction in between is movable.
func moved(prog []insn.Insn, from, to int) (edit, bool) {
	lo, hi := min(from, to), max(from, to)
	if lo < 0 || hi >= len(prog) {
		return edit{}, false
	}
	for k := lo; k <= hi; k++ {
		if !movable(prog[k]) {
			return edit{}, false
		}
	}
	seq := slices.Clone(prog[lo : hi+1])
	in := prog[from]
	if from < to {
		copy(seq, seq[1:])
		seq[len(seq)-1] = in
	} else {
		copy(seq[1:], seq)
		seq[0] = in
	}
	return edit{at: lo, del: len(seq), repl: seq}, true
}

// varArgMasks are the masks of the variable part varArgOffset adds.
var varArgMasks = []int32{1, 8}

// varArgOffset moves one argument of a call by a variable amount just
// before it: r0 (free, the call overwrites it) takes another register
// masked to a small range and is added to the argument. A lock, timer,
// kptr, dynptr, iterator or graph node must be at a constant offset, a
// stack buffer at a variable one must be initialised over its whole
// range, a context or socket pointer may not move at all.
func varArgOffset(prog []insn.Insn, i int) []edit {
	if prog[i].Filler || prog[i].Op != insn.ClassJMP|insn.JmpCall {
		return nil
	}
	var out []edit
	for a := insn.R1; a <= insn.R5; a++ {
		for x := insn.R1; x <= insn.R9; x++ {
			for _, mask := range varArgMasks {
				out = append(out, insertion(i,
					insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: insn.R0, Src: x},
					insn.Insn{Op: insn.ClassALU64 | insn.ALUAnd | insn.SrcK, Dst: insn.R0, Imm: mask},
					insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: a, Src: insn.R0}))
			}
		}
	}
	return out
}

// ldAbsOffsets are the packet offsets legacyPacketLoad reads at: the
// start, the EtherType, and past any packet.
var ldAbsOffsets = []int32{0, 12, math.MaxInt32}

// legacyPacketLoad inserts, where r0 is free (writesR0Only), a legacy
// packet load (LD_ABS of each width, LD_IND through r7-r9): refused but
// in socket filters and tc programs, in callbacks, with R6 anything but
// the unmoved context, with a reference or lock held; it clobbers r1-r5
// and, inside a subprogram, may return from it.
func legacyPacketLoad(prog []insn.Insn, i int) []edit {
	if !writesR0Only(prog[i]) {
		return nil
	}
	var out []edit
	for _, size := range []uint8{insn.SizeB, insn.SizeH, insn.SizeW} {
		for _, k := range ldAbsOffsets {
			out = append(out, insertion(i, insn.Insn{Op: insn.ClassLD | insn.ModeABS | size, Imm: k}))
		}
		for x := insn.R7; x <= insn.R9; x++ {
			out = append(out, insertion(i, insn.Insn{Op: insn.ClassLD | insn.ModeIND | size, Src: x}))
		}
	}
	return out
}
