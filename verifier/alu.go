package verifier

import (
	"math"
	"math/bits"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// aluString names an ALU operation the way the kernel's messages do.
var aluString = [16]string{"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=", "neg", "%=", "^=", "=", "s>>=", "endian", "", ""}

// regs returns the registers of the current frame.
func (e *env) regs() *[states.NumRegs]states.Reg {
	return e.cur.Frames[e.cur.CurFrame].Regs()
}

// checkRegRead is check_reg_arg(SRC_OP): the register must be initialised.
func (e *env) checkRegRead(r uint8) error {
	if !e.regReadable(e.regs(), r) {
		return e.regReadError(r)
	}
	return nil
}

// regReadable is checkRegRead's passing case for callers that hold the
// current frame's registers: r is a valid, initialised register, now
// scratched. It runs for nearly every operand of every insn, and inlines;
// a false answer is followed by regReadError.
func (e *env) regReadable(regs *[states.NumRegs]states.Reg, r uint8) bool {
	if r < states.NumRegs && regs[r].Type != states.NotInit {
		e.log.scratchedRegs |= 1 << r // markRegScratched, r being valid
		return true
	}
	return false
}

// regReadError is checkRegRead's rejection of r.
func (e *env) regReadError(r uint8) error {
	if r >= states.NumRegs {
		return e.reject(e.insnIdx, "R%d is invalid", r)
	}
	e.log.markRegScratched(r)
	return e.reject(e.insnIdx, "R%d !read_ok", r)
}

// checkRegWrite is check_reg_arg(DST_OP_NO_MARK): r10 is read only. As
// checkRegRead, the passing case inlines.
func (e *env) checkRegWrite(r uint8) error {
	if r < states.RegFP {
		e.log.scratchedRegs |= 1 << r // markRegScratched, r being valid
		return nil
	}
	return e.regWriteError(r)
}

// regWriteError is checkRegWrite's rejection of r, r10 or beyond.
func (e *env) regWriteError(r uint8) error {
	if r >= states.NumRegs {
		return e.reject(e.insnIdx, "R%d is invalid", r)
	}
	e.log.markRegScratched(r)
	return e.reject(e.insnIdx, "frame pointer is read only")
}

// markUnknown makes r an unknown, imprecise scalar.
func (e *env) markUnknown(r *states.Reg) { r.MarkUnknown(false) }

// assignScalarIDBeforeMov gives an unknown scalar an id before it is
// copied, so that the two copies stay linked.
func (e *env) assignScalarIDBeforeMov(r *states.Reg) {
	if r.Type != states.ScalarValue {
		return
	}
	if r.ID&states.AddConstID != 0 {
		// A register linked with a delta cannot be the base of a new link.
		r.ID = 0
		r.Off = 0
	}
	if r.ID == 0 && !r.Var.IsConst() {
		r.ID = e.newID()
	}
}

// regWidth is the number of significant bits of a scalar's value (the
// kernel's fls64 of umax_value): one instruction, where a loop over the
// bits cost up to 64 steps on every 32-bit mov and spill.
func regWidth(r *states.Reg) int { return bits.Len64(r.UMax) }

// checkALU simulates one ALU or ALU64 instruction. It and the functions
// it calls take the instruction by pointer (into e.prog): passed by value,
// its eight fields arrived in registers, were stored to the stack one by
// one and read back as one 16-byte value by the first method call, a
// store-forwarding stall that profiles put at 3% of the scale programs'
// time, on two lines that executed five instructions.
func (e *env) checkALU(in *insn.Insn) error {
	if err := e.checkALUOp(in); err != nil {
		return err
	}
	// check_alu_op ends with reg_bounds_sanity_check of the destination:
	// a copy of a register an infeasible edge left inconsistent (its
	// bounds reset, its constant tnum kept) is reported again.
	if d := &e.regs()[in.Dst].Scalar; !d.Sane() {
		return e.reportInsane("alu", d)
	}
	return nil
}

// checkALUOp is checkALU before its sanity check.
func (e *env) checkALUOp(in *insn.Insn) error {
	op := in.ALUOp()
	is64 := in.Class() == insn.ClassALU64
	regs := e.regs()
	switch op {
	case insn.ALUEnd, insn.ALUNeg:
		if err := e.checkRegRead(in.Dst); err != nil {
			return err
		}
		// A root loader may leak pointers, so negating or byte-swapping one
		// is allowed: the result is simply an unknown scalar.
		wasPointer := regs[in.Dst].IsPointer()
		if err := e.checkRegWrite(in.Dst); err != nil {
			return err
		}
		d := &regs[in.Dst]
		if wasPointer {
			d.MarkUnknown(false)
			return nil
		}
		aluOp := states.ALUOp{Op: op, Is64: is64, Off: in.Off, Imm: in.Imm, SrcX: in.SrcIsReg()}
		// The value changes in place: its links to other scalars break
		// (NEG through __mark_reg_known, END in scalar_byte_swap unless
		// the swap leaves the value as it is); precision is kept.
		if op == insn.ALUNeg || states.EndChangesValue(aluOp) {
			d.ID, d.Off = 0, 0
		}
		d.Scalar.ApplyALU(aluOp, &d.Scalar)
		return nil
	case insn.ALUMov:
		return e.checkMov(in, is64)
	}
	if in.SrcIsReg() && !e.regReadable(regs, in.Src) {
		return e.regReadError(in.Src)
	}
	if !e.regReadable(regs, in.Dst) {
		return e.regReadError(in.Dst)
	}
	if (op == insn.ALUMod || op == insn.ALUDiv) && !in.SrcIsReg() && in.Imm == 0 {
		return e.reject(e.insnIdx, "div by zero")
	}
	if (op == insn.ALULsh || op == insn.ALURsh || op == insn.ALUArsh) && !in.SrcIsReg() {
		size := int32(32)
		if is64 {
			size = 64
		}
		if in.Imm < 0 || in.Imm >= size {
			return e.reject(e.insnIdx, "invalid shift %d", in.Imm)
		}
	}
	if err := e.checkRegWrite(in.Dst); err != nil {
		return err
	}
	return e.adjustRegMinMax(in, op, is64)
}

// checkMov simulates BPF_MOV in all its forms (plain, 32-bit, movsx).
func (e *env) checkMov(in *insn.Insn, is64 bool) error {
	regs := e.regs()
	if !in.SrcIsReg() {
		if err := e.checkRegWrite(in.Dst); err != nil {
			return err
		}
		if is64 {
			regs[in.Dst].MarkConst(uint64(int64(in.Imm)))
		} else {
			regs[in.Dst].MarkConst(uint64(uint32(in.Imm)))
		}
		return nil
	}
	if !e.regReadable(regs, in.Src) {
		return e.regReadError(in.Src)
	}
	if err := e.checkRegWrite(in.Dst); err != nil {
		return err
	}
	src := &regs[in.Src]
	dst := &regs[in.Dst]
	if is64 {
		if in.Imm != 0 {
			// Only the address-space cast has an immediate (CheckFields).
			e.addrSpaceCast(dst, in.Imm)
			return nil
		}
		if in.Off == 0 {
			e.assignScalarIDBeforeMov(src)
			*dst = *src
			return nil
		}
		if src.IsPointer() {
			if !e.allowPtrLeaks() {
				return e.reject(e.insnIdx, "R%d sign-extension part of pointer", in.Src)
			}
			// A privileged loader may sign-extend part of a pointer; the
			// result is an unknown scalar.
			e.markUnknown(dst)
			return nil
		}
		e.movSignExtended(dst, src, in.Off, true)
		return nil
	}
	if src.IsPointer() {
		if !e.allowPtrLeaks() {
			return e.reject(e.insnIdx, "R%d partial copy of pointer", in.Src)
		}
		// A privileged loader may copy the low half of a pointer: an
		// unknown scalar, zero-extended like any 32-bit result.
		e.markUnknown(dst)
		dst.Scalar.ZeroExtend32()
		return nil
	}
	if in.Off == 0 {
		fits := regWidth(src) <= 32
		if fits {
			e.assignScalarIDBeforeMov(src)
		}
		*dst = *src
		if !fits {
			// clear_scalar_id: the link and its delta.
			dst.ID, dst.Off = 0, 0
		}
		// Zero extension syncs the bounds.
		dst.Scalar.ZeroExtend32()
		return nil
	}
	e.movSignExtended(dst, src, in.Off, false)
	return nil
}

// movSignExtended is "dst = (sN) src" for a scalar src, N = bits: the
// copy stays linked to src only when the sign bit cannot be set, as
// sign extension would otherwise change the value. The 32-bit form also
// zero-extends and syncs (SignExtend does both).
func (e *env) movSignExtended(dst, src *states.Reg, bits int16, is64 bool) {
	noSext := src.UMax < uint64(1)<<(bits-1)
	if noSext {
		e.assignScalarIDBeforeMov(src)
	}
	*dst = *src
	if !noSext {
		// The running 6.18.44 kernel clears the copy's link delta
		// with its id (clear_scalar_id), so a stale delta does not
		// keep the copy from comparing equal to an unlinked one.
		dst.ID, dst.Off = 0, 0
	}
	dst.Scalar = e.signExtend(dst.Scalar, int(bits)/8, is64)
}

// signExtend is states.SignExtend, but for a 64-bit extension on a kernel
// without stablefix.Sext32DropsSubreg, which falls back on the 32-bit
// bounds (states.SignExtendSubreg).
func (e *env) signExtend(s states.Scalar, size int, is64 bool) states.Scalar {
	if is64 && e.opts.MissingFixes.Has(stablefix.Sext32DropsSubreg) {
		return states.SignExtendSubreg(s, size)
	}
	return states.SignExtend(s, size, is64)
}

// adjustRegMinMax is adjust_reg_min_max_vals: dispatch between pointer
// arithmetic and scalar arithmetic.
func (e *env) adjustRegMinMax(in *insn.Insn, op uint8, is64 bool) error {
	regs := e.regs()
	dst := &regs[in.Dst]
	if dst.Type == states.PtrToArena || in.SrcIsReg() && regs[in.Src].Type == states.PtrToArena {
		// Any arithmetic with an arena pointer is allowed, whatever
		// the other operand: the result is an arena pointer (the JIT
		// keeps its low 32 bits), the source's when the destination
		// was not one. The 6.18 stable kernels do this for either
		// operand; later kernels for the destination only.
		if dst.Type != states.PtrToArena {
			*dst = regs[in.Src]
		}
		return nil
	}
	// The immediate operand: a constant scalar, made a register only
	// for pointer arithmetic (adjustPtrMinMax), which few ALU
	// instructions are.
	var src *states.Reg
	var imm states.Scalar
	if in.SrcIsReg() {
		src = &regs[in.Src]
		if src.Type != states.ScalarValue {
			if dst.Type != states.ScalarValue {
				if op == insn.ALUSub && e.allowPtrLeaks() {
					e.markUnknown(dst)
					return nil
				}
				return e.reject(e.insnIdx, "R%d pointer %s pointer prohibited", in.Dst, aluString[op>>4])
			}
			// scalar += pointer: the result is the pointer.
			if err := e.markChainPrecision(int(in.Dst)); err != nil {
				return err
			}
			return e.adjustPtrMinMax(in, op, is64, src, dst)
		} else if dst.Precise() {
			if err := e.markChainPrecision(int(in.Src)); err != nil {
				return err
			}
		}
	} else {
		imm.SetConst(uint64(int64(in.Imm))) // in place: see SetConst
	}
	if dst.Type != states.ScalarValue {
		if in.SrcIsReg() {
			if err := e.markChainPrecision(int(in.Src)); err != nil {
				return err
			}
		} else {
			var srcVal states.Reg
			srcVal.MarkConst(uint64(int64(in.Imm)))
			src = &srcVal
		}
		return e.adjustPtrMinMax(in, op, is64, dst, src)
	}
	srcScalar := &imm
	if in.SrcIsReg() {
		srcScalar = &src.Scalar
	}
	if (op == insn.ALUAnd || op == insn.ALUOr) && srcScalar.Var.IsConst() {
		if err := e.maybeForkScalars(in, dst); err != nil {
			return err
		}
	}
	// Linked scalars: r += const and r -= const keep the link with a
	// delta; anything else breaks it. The delta, and the upper half of
	// dst that a 32-bit link needs known zero, are read before the
	// operation changes dst in place.
	if dst.ID != 0 {
		dst.ID, dst.Off = linkDelta(dst.ID, op, is64, in.SrcIsReg() && in.Src == in.Dst, srcScalar, dst.UMax)
	} else {
		dst.Off = 0 // linkDelta's answer for an unlinked scalar, without the call
	}
	dst.Scalar.ApplyALU(states.ALUOp{Op: op, Is64: is64, Off: in.Off, Imm: in.Imm, SrcX: in.SrcIsReg()}, srcScalar)
	return nil
}

// linkDelta returns the id and delta of a linked scalar after dst op= src
// (the tail of adjust_reg_min_max_vals, as amended in the 6.18 stable
// series): an add or subtract of a constant that fits in 32 signed bits
// records the delta and the width of the operation; anything else, a
// second delta, or a 32-bit operation on a register whose upper half may
// be non-zero clears the link. sameReg is an operation of a register with
// itself, whose source is no longer the value it had.
func linkDelta(id uint32, op uint8, is64, sameReg bool, src *states.Scalar, dstUMaxBefore uint64) (uint32, int32) {
	if id == 0 || (op != insn.ALUAdd && op != insn.ALUSub) || sameReg {
		return 0, 0
	}
	var val int64
	if is64 {
		if !src.Var.IsConst() {
			return 0, 0
		}
		val = int64(src.Var.Value)
		if val < math.MinInt32 || val > math.MaxInt32 {
			return 0, 0
		}
	} else {
		sub := src.Var.Subreg()
		if !sub.IsConst() {
			return 0, 0
		}
		if dstUMaxBefore > math.MaxUint32 {
			return 0, 0
		}
		val = int64(int32(uint32(sub.Value)))
	}
	off := int32(val)
	if op == insn.ALUSub {
		if off == math.MinInt32 {
			return 0, 0
		}
		off = -off
	}
	if id&states.AddConstID != 0 {
		return 0, 0
	}
	if is64 {
		return id | states.AddConst64ID, off
	}
	return id | states.AddConst32ID, off
}

// allowPtrLeaks is true for privileged loaders, which vercheck models.
func (e *env) allowPtrLeaks() bool { return true }

// checkPtrSaneOffset is check_reg_sane_offset for the pointer of pointer
// arithmetic, before and after the operation: on builds with
// stablefix.PtrOffsetMessage (check_reg_sane_offset_ptr) every bound out of
// range, the unbounded one too, is "pointer offset N is not allowed".
func (e *env) checkPtrSaneOffset(r *states.Reg, ptr *states.Reg) error {
	if e.opts.MissingFixes.Has(stablefix.PtrOffsetMessage) {
		return e.checkRegSaneOffset(r, ptr, true)
	}
	out := func(v int64) bool { return v >= maxVarOff || v <= -maxVarOff }
	switch {
	case r.Var.IsConst() && out(int64(r.Var.Value)):
		return e.reject(e.insnIdx, "%s pointer offset %d is not allowed", regTypeStr(ptr), int64(r.Var.Value))
	case out(int64(r.Off)):
		return e.reject(e.insnIdx, "%s pointer offset %d is not allowed", regTypeStr(ptr), r.Off)
	case out(r.SMin):
		return e.reject(e.insnIdx, "%s pointer offset %d is not allowed", regTypeStr(ptr), r.SMin)
	}
	return nil
}

// checkRegSaneOffset is check_reg_sane_offset; with checkOff false it
// leaves r's fixed offset out, as 7.x's check_reg_sane_offset_scalar does
// for the scalar operand (whose Off is the delta of a linked scalar, no
// offset).
func (e *env) checkRegSaneOffset(r *states.Reg, ptr *states.Reg, checkOff bool) error {
	if r.Var.IsConst() {
		v := int64(r.Var.Value)
		if v >= maxVarOff || v <= -maxVarOff {
			return e.reject(e.insnIdx, "math between %s pointer and %d is not allowed", regTypeStr(ptr), v)
		}
	}
	if checkOff && (r.Off >= maxVarOff || r.Off <= -maxVarOff) {
		return e.reject(e.insnIdx, "%s pointer offset %d is not allowed", regTypeStr(ptr), r.Off)
	}
	if r.SMin == minInt64 {
		return e.reject(e.insnIdx, "math between %s pointer and register with unbounded min value is not allowed", regTypeStr(ptr))
	}
	if r.SMin >= maxVarOff || r.SMin <= -maxVarOff {
		return e.reject(e.insnIdx, "value %d makes %s pointer be out of bounds", r.SMin, regTypeStr(ptr))
	}
	return nil
}

const (
	minInt64  = -1 << 63
	maxInt64  = 1<<63 - 1
	maxUint64 = ^uint64(0)
)

// adjustPtrMinMax is adjust_ptr_min_max_vals: pointer plus or minus a
// scalar. ptr and off are the operands; the result goes to the insn's dst.
func (e *env) adjustPtrMinMax(in *insn.Insn, op uint8, is64 bool, ptr, off *states.Reg) error {
	regs := e.regs()
	dst := &regs[in.Dst]
	dstNo := in.Dst
	if !is64 {
		if op == insn.ALUSub && e.allowPtrLeaks() {
			e.markUnknown(dst)
			return nil
		}
		return e.reject(e.insnIdx, "R%d 32-bit pointer arithmetic prohibited", dstNo)
	}
	if ptr.MaybeNull() {
		return e.reject(e.insnIdx, "R%d pointer arithmetic on %s prohibited, null-check it first", dstNo, regTypeStr(ptr))
	}
	if isRdonlyUntrustedMem(ptr) {
		// Loads through untrusted memory are probe reads: the kernel
		// tracks no offset. The destination is left as it was, but for
		// "scalar op= pointer" a kernel with ScalarAddPtrCopy has
		// copied the pointer into it first, whatever the operator.
		if dst == off && !e.opts.MissingFixes.Has(stablefix.ScalarAddPtrCopy) {
			*dst = *ptr
		}
		return nil
	}
	known := off.Var.IsConst()
	smin, smax, umin, umax := off.SMin, off.SMax, off.UMin, off.UMax
	switch ptr.Type {
	case states.PtrToCtx, states.PtrToMapValue, states.PtrToMapKey, states.PtrToStack,
		states.PtrToPacketMeta, states.PtrToPacket, states.PtrToTPBuffer, states.PtrToBTFID,
		states.PtrToMem, states.PtrToBuf, states.PtrToFunc, states.ConstPtrToDynptr:
		// A callback's dynptr_ptr may move too; the helper that takes it
		// then refuses the offset (check_func_arg_reg_off).
	case states.PtrToFlowKeys:
		if !known {
			return e.reject(e.insnIdx, "R%d pointer arithmetic on %s prohibited", dstNo, regTypeStr(ptr))
		}
	case states.ConstPtrToMap:
		if !(known && smin == 0 && op == insn.ALUAdd) {
			return e.reject(e.insnIdx, "R%d pointer arithmetic on %s prohibited", dstNo, regTypeStr(ptr))
		}
	default:
		return e.reject(e.insnIdx, "R%d pointer arithmetic on %s prohibited", dstNo, regTypeStr(ptr))
	}
	if (known && (smin != smax || umin != umax)) || smin > smax || umin > umax {
		e.markUnknown(dst)
		return nil
	}
	p := *ptr
	// 6.18.0 checks the scalar's Off too, which for a linked scalar is
	// its delta (stablefix.LinkedDeltaOffCheck).
	if err := e.checkRegSaneOffset(off, &p, !e.opts.MissingFixes.Has(stablefix.LinkedDeltaOffCheck)); err != nil {
		return err
	}
	if err := e.checkPtrSaneOffset(&p, &p); err != nil {
		return err
	}
	res := p
	res.SetPrecise(false)
	switch op {
	case insn.ALUAdd:
		if known && int64(p.Off)+smin == int64(int32(int64(p.Off)+smin)) {
			res.Off = p.Off + int32(smin)
			break
		}
		res.SMin, res.SMax = addSat(p.SMin, smin, p.SMax, smax)
		if p.UMin+umin < p.UMin || p.UMax+umax < p.UMax {
			res.UMin, res.UMax = 0, maxUint64
		} else {
			res.UMin, res.UMax = p.UMin+umin, p.UMax+umax
		}
		res.Var = p.Var.Add(off.Var)
		if p.IsPktPointer() {
			res.ID = e.newID()
			res.Range = 0
		}
	case insn.ALUSub:
		if dst == off {
			return e.reject(e.insnIdx, "R%d tried to subtract pointer from scalar", dstNo)
		}
		if p.Type == states.PtrToStack {
			return e.reject(e.insnIdx, "R%d subtraction from stack pointer prohibited", dstNo)
		}
		if known && int64(p.Off)-smin == int64(int32(int64(p.Off)-smin)) {
			res.Off = p.Off - int32(smin)
			break
		}
		lo, ok1 := subOK(p.SMin, smax)
		hi, ok2 := subOK(p.SMax, smin)
		if ok1 && ok2 {
			res.SMin, res.SMax = lo, hi
		} else {
			res.SMin, res.SMax = minInt64, maxInt64
		}
		if p.UMin < umax {
			res.UMin, res.UMax = 0, maxUint64
		} else {
			res.UMin, res.UMax = p.UMin-umax, p.UMax-umin
		}
		res.Var = p.Var.Sub(off.Var)
		if p.IsPktPointer() {
			res.ID = e.newID()
			if smin < 0 {
				res.Range = 0
			}
		}
	case insn.ALUAnd, insn.ALUOr, insn.ALUXor:
		return e.reject(e.insnIdx, "R%d bitwise operator %s on pointer prohibited", dstNo, aluString[op>>4])
	default:
		return e.reject(e.insnIdx, "R%d pointer arithmetic with %s operator prohibited", dstNo, aluString[op>>4])
	}
	if res.IsPktPointer() && res.Range < 0 && !e.opts.MissingFixes.Has(stablefix.PktRangeArith) {
		// AT_PKT_END and BEYOND_PKT_END describe where the pointer was
		// compared, not where it now points (stablefix.PktRangeArith).
		// Other pointers' Range is a size (memSize: a u32 of 2^31 or
		// more is negative here) that arithmetic keeps.
		res.Range = 0
	}
	// Pointers carry no 32-bit bounds.
	res.S32Min, res.S32Max = -1<<31, 1<<31-1
	res.U32Min, res.U32Max = 0, 1<<32-1
	if err := e.checkPtrSaneOffset(&res, &p); err != nil {
		return err
	}
	res.Scalar.Sync()
	if dst == off && e.opts.MissingFixes.Has(stablefix.ScalarAddPtrCopy) {
		// "scalar += pointer" on a kernel without ScalarAddPtrCopy
		// gives the scalar's register the pointer's type, id, offsets
		// and type-specific fields, and nothing else of it: the
		// register keeps its own reference (none: a copy made this way
		// cannot release the object, nor is it invalidated with it)
		// and its own frame number (0 for a scalar made in the main
		// program), so a subprogram's "scalar += r10" points, for that
		// kernel, into that frame's stack, not its own. With the fix
		// the result is the pointer's whole state, offset added.
		res.RefObjID = off.RefObjID
		res.SetFrameNo(off.FrameNo())
	}
	*dst = res
	return nil
}

// addSat adds two signed ranges, widening to the full range on overflow.
func addSat(aMin, bMin, aMax, bMax int64) (int64, int64) {
	lo, ok1 := addOK(aMin, bMin)
	hi, ok2 := addOK(aMax, bMax)
	if !ok1 || !ok2 {
		return minInt64, maxInt64
	}
	return lo, hi
}

func addOK(a, b int64) (int64, bool) {
	s := a + b
	return s, !((a >= 0) == (b >= 0) && (s >= 0) != (a >= 0))
}

func subOK(a, b int64) (int64, bool) {
	s := a - b
	return s, !((a >= 0) != (b >= 0) && (s >= 0) != (a >= 0))
}

// maybeForkScalars is the kernel's split of a sign mask: when dst is known
// to be -1 or 0 (the result of "x s>>= 63" that compilers emit for
// conditional masks) and is ANDed or ORed with a constant, the two values
// are explored separately, so each gives an exact result. The pushed path
// re-runs this insn with dst = 0; this one goes on with dst = -1.
func (e *env) maybeForkScalars(in *insn.Insn, dst *states.Reg) error {
	var alu32 bool
	switch {
	case dst.SMin == -1 && dst.SMax == 0:
		alu32 = false
	case dst.S32Min == -1 && dst.S32Max == 0:
		alu32 = true
	default:
		return nil
	}
	branch, err := e.pushStack(e.insnIdx, e.insnIdx)
	if err != nil {
		return err
	}
	// The pushed branch may be packed: it holds the scalar dst.
	other := branch.Cur().Reg(int(in.Dst))
	if alu32 {
		markKnown32(other, 0)
		markKnown32(dst, ^uint64(0))
	} else {
		other.MarkKnown(0)
		dst.MarkKnown(^uint64(0))
	}
	return nil
}

// markKnown32 sets the low 32 bits of r to the constant v (the kernel's
// __mark_reg32_known); the 64-bit bounds are left to the following sync.
func markKnown32(r *states.Reg, v uint64) {
	r.Var = r.Var.ConstSubreg(uint32(v))
	r.S32Min, r.S32Max = int32(v), int32(v)
	r.U32Min, r.U32Max = uint32(v), uint32(v)
}
