package mutate

import (
	"github.com/vercheck/vercheck/insn"
)

// This file holds the operators that reach the kernel's rules for
// pointers and wide instruction forms: byte swaps, may_goto, narrow
// accesses, stores of pointers, atomics on every kind of memory and
// arithmetic on pointers.

// isALU reports whether in is of an ALU class.
func isALU(in insn.Insn) bool {
	return in.Class() == insn.ClassALU || in.Class() == insn.ClassALU64
}

// byteSwapOps are the opcodes of the byte swaps: to little and to big
// endian, and the unconditional bswap (ALU64).
var byteSwapOps = []uint8{
	insn.ClassALU | insn.ALUEnd | insn.EndToLE,
	insn.ClassALU | insn.ALUEnd | insn.EndToBE,
	insn.ClassALU64 | insn.ALUEnd | insn.EndToLE,
}

// byteSwapWidths are the widths a byte swap takes, in its imm.
var byteSwapWidths = []int32{16, 32, 64}

// byteSwaps returns every byte swap of register r.
func byteSwaps(r uint8) []insn.Insn {
	var out []insn.Insn
	for _, op := range byteSwapOps {
		for _, w := range byteSwapWidths {
			out = append(out, insn.Insn{Op: op, Dst: r, Imm: w})
		}
	}
	return out
}

// byteSwap replaces a byte swap by each other form and width, and inserts
// each before an instruction that uses a register: the bounds of a
// swapped scalar (a truncation to 16 or 32 bits, a 64-bit to-little-endian
// that changes nothing) and a swapped pointer, which the kernel refuses.
func byteSwap(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler {
		return nil
	}
	var out []edit
	if isALU(in) && in.ALUOp() == insn.ALUEnd {
		for _, v := range byteSwaps(in.Dst) {
			if v != in {
				out = append(out, rewrite(i, v))
			}
		}
		return out
	}
	for _, r := range usedRegs(in) {
		for _, v := range byteSwaps(r) {
			out = append(out, insertion(i, v))
		}
	}
	return out
}

// mayGotoInsn is "may_goto pc+off".
func mayGotoInsn(off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | insn.JmpJCOND, Src: insn.MayGotoSrc, Off: off}
}

// mayGoto turns a goto into a may_goto and inserts, before instruction i,
// a may_goto over it and one to it: an instruction skipped only once the
// loop budget runs out, a checkpoint the program did not have, and the
// stack slot the kernel reserves for the budget.
func mayGoto(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler {
		return nil
	}
	var out []edit
	if in.Op == insn.ClassJMP|insn.JmpJA {
		out = append(out, rewrite(i, mayGotoInsn(in.Off)))
	}
	return append(out, insertion(i, mayGotoInsn(0)), insertion(i, mayGotoInsn(int16(in.Width()))))
}

// narrowAccess replaces a plain load or store by each narrower one within
// the same bytes, at every offset but the first (accessSize and
// spillWidth make those): a byte or the high half of a context field
// (the kernel's narrow-load rules, its refusal of narrow loads of pointer
// fields), a part of a spilled register, a store into part of a field.
func narrowAccess(in insn.Insn) []insn.Insn {
	if !isMemAccess(in) || in.Mode() == insn.ModeATOMIC {
		return nil
	}
	size := in.SizeBytes()
	var out []insn.Insn
	for k, code := range sizeCodes {
		width := 1 << k
		for at := width; at < size; at += width {
			v := in
			v.Op = in.Op&^0x18 | code
			v.Off = in.Off + int16(at)
			out = append(out, v)
		}
	}
	return out
}

// accessBase returns the register a memory access goes through.
func accessBase(in insn.Insn) uint8 {
	if in.Class() == insn.ClassLDX {
		return in.Src
	}
	return in.Dst
}

// accessValue returns the register a memory access loads or stores, r0
// for a store of an immediate.
func accessValue(in insn.Insn) uint8 {
	switch in.Class() {
	case insn.ClassLDX:
		return in.Dst
	case insn.ClassSTX:
		return in.Src
	}
	return insn.R0
}

// pointerStore inserts before a memory access a store of each register,
// whole or its low four bytes, to the same address: a pointer leaked
// into a map value, the context or the packet, part of a pointer spilled,
// an uninitialised register stored.
func pointerStore(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !isMemAccess(in) {
		return nil
	}
	var out []edit
	for r := insn.R0; r <= insn.R10; r++ {
		for _, size := range []uint8{insn.SizeDW, insn.SizeW} {
			out = append(out, insertion(i, insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | size, Dst: accessBase(in), Src: r, Off: in.Off}))
		}
	}
	return out
}

// atomicSizes are the widths of the read-modify-write atomics; the
// load-acquire and store-release take every width.
var atomicSizes = []uint8{insn.SizeW, insn.SizeDW}

// isAcquireRelease reports whether op is a load-acquire or a
// store-release.
func isAcquireRelease(op int32) bool {
	return op == insn.AtomicLoadAcq || op == insn.AtomicStoreRel
}

// atomicAt returns the atomic operation op of the given size on the
// address of the memory access in, with in's value register: a
// load-acquire loads into it (its dst), the others take it as their src.
func atomicAt(in insn.Insn, op int32, size uint8) insn.Insn {
	a := insn.Insn{Op: insn.ClassSTX | insn.ModeATOMIC | size, Dst: accessBase(in), Src: accessValue(in), Off: in.Off, Imm: op}
	if op == insn.AtomicLoadAcq {
		a.Dst, a.Src = a.Src, a.Dst
	}
	return a
}

// atomicAccess turns a plain load into a load-acquire of its width, and
// inserts before a memory access each atomic operation on the same
// address, with the access's value register: atomics on the context, the
// packet, a read-only map or a spilled pointer, fetches into a pointer's
// register, 8- and 16-bit acquire and release.
func atomicAccess(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !isMemAccess(in) {
		return nil
	}
	var out []edit
	if in.Class() == insn.ClassLDX && in.Mode() == insn.ModeMEM {
		out = append(out, rewrite(i, atomicAt(in, insn.AtomicLoadAcq, in.Op&0x18)))
	}
	for _, op := range atomicOps {
		sizes := atomicSizes
		if isAcquireRelease(op) {
			sizes = sizeCodes
		}
		for _, size := range sizes {
			out = append(out, insertion(i, atomicAt(in, op, size)))
		}
	}
	return out
}

// pointerOperands are the immediates pointerALU uses besides registers.
var pointerOperands = []int32{0, 1}

// pointerALU inserts before a memory access an operation on its base
// register of every kind, 64 and 32 bits wide, with each register (the
// frame pointer included) and 0 and 1 as the operand, and its negation:
// a pointer minus a pointer, ANDed or ORed, truncated to 32 bits, moved
// by an unknown scalar, each refused or made a scalar as the kernel's
// adjust_ptr_min_max_vals rules.
func pointerALU(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !isMemAccess(in) || accessBase(in) == insn.R10 {
		return nil
	}
	base := accessBase(in)
	var out []edit
	for _, class := range []uint8{insn.ClassALU64, insn.ClassALU} {
		out = append(out, insertion(i, insn.Insn{Op: class | insn.ALUNeg, Dst: base}))
		for _, op := range aluOps {
			for r := insn.R0; r <= insn.R10; r++ {
				out = append(out, insertion(i, insn.Insn{Op: class | op | insn.SrcX, Dst: base, Src: r}))
			}
			for _, k := range pointerOperands {
				out = append(out, insertion(i, insn.Insn{Op: class | op, Dst: base, Imm: k}))
			}
		}
	}
	return out
}

// varOffsetMasks bound the unknown offsets varOffsetBase adds: one byte
// of slack, a slot, a byte's range.
var varOffsetMasks = []int32{1, 7, 0xff}

// varOffsetBase moves the base of a memory access other than through the
// frame pointer by a bounded unknown amount (an unknown byte from the
// uninitialised scratch slot in a dead register, masked, or sign-extended
// to [-128, 127]: "min value is negative") before the access: a variable offset into a map value, a packet, an iterator's
// buffer, a BTF object, a dynptr slice, whose rules differ by pointer
// type (check_map_access' "min value is negative", check_buffer_access'
// "invalid variable buffer offset", "variable ctx access var_off",
// check_ptr_to_btf_access' "invalid variable offset").
func varOffsetBase(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !isMemAccess(in) || accessBase(in) == insn.R10 {
		return nil
	}
	slot, ok := scratchSlot(prog)
	if !ok {
		return nil
	}
	d, ok := deadReg(prog, i)
	if !ok || d == accessBase(in) {
		return nil
	}
	add := insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: accessBase(in), Src: d}
	var out []edit
	for _, mask := range varOffsetMasks {
		out = append(out, insertion(i, load(insn.SizeB, d, insn.R10, slot), aluImm(insn.ALUAnd, d, mask), add))
	}
	signed := load(insn.SizeB, d, insn.R10, slot)
	signed.Op = insn.ClassLDX | insn.ModeMEMSX | insn.SizeB
	return append(out, insertion(i, signed, add))
}
