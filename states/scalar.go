package states

// ALU operations (the high four bits of an ALU or ALU64 opcode), the same
// values as package insn's ALU constants.
const (
	aluAdd  uint8 = 0x00
	aluSub  uint8 = 0x10
	aluMul  uint8 = 0x20
	aluDiv  uint8 = 0x30
	aluOr   uint8 = 0x40
	aluAnd  uint8 = 0x50
	aluLsh  uint8 = 0x60
	aluRsh  uint8 = 0x70
	aluNeg  uint8 = 0x80
	aluMod  uint8 = 0x90
	aluXor  uint8 = 0xa0
	aluMov  uint8 = 0xb0
	aluArsh uint8 = 0xc0
	aluEnd  uint8 = 0xd0
)

// ALUOp describes one scalar ALU instruction.
type ALUOp struct {
	Op   uint8 // high four bits of the opcode: insn.ALUAdd ... insn.ALUEnd (0x00..0xd0)
	Is64 bool  // BPF_ALU64 class
	Off  int16 // the insn's off field: 1 = signed div/mod (sdiv/smod)
	Imm  int32 // for END/bswap: the width 16/32/64
	SrcX bool  // for END: BPF_TO_BE (bit 3 set); ALU64|END is bswap (unconditional)
}

// UnknownScalar returns a scalar about which nothing is known (the bounds
// and tnum of the kernel's __mark_reg_unknown).
func UnknownScalar() Scalar { return unknownScalar }

// unknownScalar is the top of the lattice, built once: registers are
// reset to it millions of times.
var unknownScalar = func() Scalar {
	var s Scalar
	s.Var = TnumUnknown()
	s.set64(fullIval[int64, uint64]())
	s.set32(fullIval[int32, uint32]())
	return s
}()

// ConstScalar returns the scalar holding exactly v (__mark_reg_known):
// SetConst on a new scalar, which the compiler inlines (the interpreter
// makes a constant at most instructions).
func ConstScalar(v uint64) Scalar {
	var s Scalar
	s.SetConst(v)
	return s
}

// SetConst makes s the constant v, field by field, every field of s
// written (so ConstScalar is built with it). Assigning ConstScalar's
// result to a scalar in place builds it in a temporary with
// 8- and 4-byte stores and copies it with 16-byte loads, which the CPU
// cannot forward from those stores (a store-forwarding stall on every
// ALU insn with an immediate, see the verifier's adjustRegMinMax).
func (s *Scalar) SetConst(v uint64) {
	s.Var.Value, s.Var.Mask = v, 0
	s.SMin, s.SMax, s.UMin, s.UMax = int64(v), int64(v), v, v
	s.S32Min, s.S32Max, s.U32Min, s.U32Max = int32(v), int32(v), uint32(v), uint32(v)
}

// IsConst reports whether s holds a single known value.
func (s Scalar) IsConst() bool { return s.Var.IsConst() }

// Const returns the value of a constant scalar (the tnum's known bits
// otherwise).
func (s Scalar) Const() uint64 { return s.Var.Value }

// IsConst32 reports whether the low 32 bits of s are known
// (tnum_subreg_is_const).
func (s Scalar) IsConst32() bool { return s.Var.Subreg().IsConst() }

// zext copies the subregister into the whole register, upper bits zero
// (zext_32_to_64). A subregister whose signed range is negative gives the
// widest non-negative 32-bit signed range, refined later from the tnum.
func (s *Scalar) zext() {
	s.Var = s.Var.Subreg()
	s.UMin, s.UMax = uint64(s.U32Min), uint64(s.U32Max)
	if s.S32Min >= 0 && s.S32Max >= 0 {
		s.SMin, s.SMax = int64(s.S32Min), int64(s.S32Max)
	} else {
		s.SMin, s.SMax = 0, subregMask
	}
}

// ZeroExtend32 is the result of a 32-bit operation whose subregister is s:
// the kernel's zext_32_to_64 followed by reg_bounds_sync, which every
// kernel caller pairs. Do not Sync the result again.
func ZeroExtend32(s Scalar) Scalar {
	s.ZeroExtend32()
	return s
}

// ZeroExtend32 sets s to the function ZeroExtend32's result, in place: a
// 32-bit mov does it at every visit, where the copies of the value form
// showed in profiles.
func (s *Scalar) ZeroExtend32() {
	s.zext()
	s.Sync()
}

// Truncate keeps the low size bytes (1, 2 or 4) of s, as a zero-extending
// load does (coerce_reg_to_size, including its reg_bounds_sync). Other
// sizes return s unchanged.
func Truncate(s Scalar, size int) Scalar {
	if size <= 0 || size*8 >= regBits {
		return s
	}
	s.Var = s.Var.Cast(uint8(size))
	keep := uint64(1)<<(uint(size)*8) - 1
	if s.UMin&^keep == s.UMax&^keep {
		s.UMin &= keep
		s.UMax &= keep
	} else {
		s.UMin, s.UMax = 0, keep
	}
	s.SMin, s.SMax = int64(s.UMin), int64(s.UMax)
	if size*8 < subregBits {
		s.set32(fullIval[int32, uint32]())
	}
	s.Sync()
	return s
}

// Sizes in bytes a sign extension reads.
const (
	sextByte = 1
	sextHalf = 2
	sextWord = 4
)

// signExtendFrom sign-extends the low size bytes of v to 64 bits.
func signExtendFrom(v uint64, size int) int64 {
	switch size {
	case sextByte:
		return int64(int8(v))
	case sextHalf:
		return int64(int16(v))
	default:
		return int64(int32(v))
	}
}

// SignExtend sign-extends the low size bytes (1, 2, or 4 when is64) of s.
// With is64 it is the kernel's coerce_reg_to_size_sx for "r = (sN) r" and
// sign-extending loads, which the kernel does not follow with
// reg_bounds_sync. Without is64 it is "w = (sN) w" (size 1 or 2) whole:
// coerce_subreg_to_size_sx, zext_32_to_64 and reg_bounds_sync. Other sizes
// give an unknown scalar.
func SignExtend(s Scalar, size int, is64 bool) Scalar {
	if size != sextByte && size != sextHalf && (size != sextWord || !is64) {
		return UnknownScalar()
	}
	if is64 {
		return signExtend64(s, size)
	}
	s = signExtend32(s, size)
	return ZeroExtend32(s)
}

// signExtend64 is coerce_reg_to_size_sx.
func signExtend64(s Scalar, size int) Scalar {
	if r, ok := signExtend64Exact(s, size); ok {
		return r
	}
	// The extended value can be anything of the source width.
	bits := uint(size) * 8
	half := int64(1) << (bits - 1)
	s.SMin, s.SMax = -half, half-1
	s.S32Min, s.S32Max = int32(-half), int32(half-1)
	s.UMin, s.UMax = 0, ^uint64(0)
	s.U32Min, s.U32Max = 0, ^uint32(0)
	s.Var = TnumUnknown()
	return s
}

// signExtend64Exact is the part of coerce_reg_to_size_sx that derives the
// result from the 64-bit bounds: a constant, or a range whose bits above
// the source width are one value and whose extension keeps one sign. It
// reports false where the result is left to a default.
func signExtend64Exact(s Scalar, size int) (Scalar, bool) {
	if s.Var.IsConst() {
		return ConstScalar(uint64(signExtendFrom(s.Var.Value, size))), true
	}
	bits := uint(size) * 8
	if uint64(s.SMax)>>bits != uint64(s.SMin)>>bits {
		return s, false
	}
	lo := signExtendFrom(uint64(s.SMin), size)
	hi := signExtendFrom(uint64(s.SMax), size)
	lo, hi = min(lo, hi), max(lo, hi)
	if (lo >= 0) != (hi >= 0) {
		return s, false
	}
	s.SMin, s.SMax = lo, hi
	s.UMin, s.UMax = uint64(lo), uint64(hi)
	s.S32Min, s.S32Max = int32(lo), int32(hi)
	s.U32Min, s.U32Max = uint32(lo), uint32(hi)
	s.Var = TnumRange(uint64(lo), uint64(hi))
	return s, true
}

// SignExtendSubreg is "r = (sN) r" and sign-extending loads on a kernel
// whose default for a range the 64-bit bounds cannot extend falls back on
// the 32-bit bounds (the running 6.18.44-fc-v1045; 6.18.0's default gives
// any value of the width and forgets them: SignExtend). Where the signed
// 32-bit range fits in the width (always for size 4: sign extension from
// 32 bits does not change the low half; for size 1 or 2 a range within
// [-2^(8*size-1), 2^(8*size-1)-1], which the extension leaves as it is),
// the 32-bit bounds are kept and the 64-bit signed range is the signed
// 32-bit one: w6 in [-3, 2] gives r7 = (s16) r6 in [-3, 2]. The bit
// pattern is not kept, and the bounds are synced. Other ranges get the
// default.
func SignExtendSubreg(s Scalar, size int) Scalar {
	if r, ok := signExtend64Exact(s, size); ok {
		return r
	}
	half := int64(1) << (uint(size)*8 - 1)
	if int64(s.S32Min) < -half || int64(s.S32Max) >= half {
		return signExtend64(s, size)
	}
	s.SMin, s.SMax = int64(s.S32Min), int64(s.S32Max)
	s.UMin, s.UMax = 0, ^uint64(0)
	s.Var = TnumUnknown()
	s.Sync()
	return s
}

// signExtend32 is coerce_subreg_to_size_sx: it sets the subregister only.
func signExtend32(s Scalar, size int) Scalar {
	if s.Var.IsConst() {
		s.Var = TnumConst(uint64(signExtendFrom(s.Var.Value, size)))
		v := uint32(s.Var.Value)
		s.set32(constIval[int32](v))
		return s
	}
	bits := uint(size) * 8
	if uint32(s.S32Max)>>bits == uint32(s.S32Min)>>bits {
		lo := int32(signExtendFrom(uint64(uint32(s.S32Min)), size))
		hi := int32(signExtendFrom(uint64(uint32(s.S32Max)), size))
		lo, hi = min(lo, hi), max(lo, hi)
		if (lo >= 0) == (hi >= 0) {
			s.S32Min, s.S32Max = lo, hi
			s.U32Min, s.U32Max = uint32(lo), uint32(hi)
			s.Var = TnumRange(uint64(int64(lo)), uint64(int64(hi))).Subreg()
			return s
		}
	}
	half := int32(1) << (bits - 1)
	s.S32Min, s.S32Max = -half, half-1
	s.U32Min, s.U32Max = 0, ^uint32(0)
	s.Var = TnumUnknown().Subreg()
	return s
}

// rangeComputable reports whether the kernel tracks the result range of op
// with this source (is_safe_to_compute_dst_reg_range): always for the
// additive, multiplicative and bitwise operations and END, for shifts only
// by a constant smaller than the width, never for div and mod.
func rangeComputable(op ALUOp, src *Scalar) bool {
	switch op.Op {
	case aluAdd, aluSub, aluNeg, aluAnd, aluXor, aluOr, aluMul, aluEnd:
		return true
	case aluLsh, aluRsh, aluArsh:
		// The source is a constant of the operation's width, and the
		// amount (its 64-bit umax, in both widths) is below the width.
		if op.Is64 {
			return src.IsConst() && src.SMin == src.SMax && src.UMin == src.UMax && src.UMax < regBits
		}
		return src.IsConst32() && src.S32Min == src.S32Max && src.U32Min == src.U32Max && src.UMax < subregBits
	default:
		return false
	}
}

// ScalarALU applies op to dst with src as the kernel's
// adjust_scalar_min_max_vals does for two scalars; see ApplyALU, the form
// the verifier uses, which changes a register's scalar in place.
func ScalarALU(op ALUOp, dst, src Scalar) Scalar {
	dst.ApplyALU(op, &src)
	return dst
}

// ApplyALU sets s to s op src as the kernel's adjust_scalar_min_max_vals
// does for two scalars (src is the constant operand for BPF_K, the
// immediate sign-extended to 64 bits). For NEG and END src is ignored (the
// kernel passes dst for both). The result of an ALU32 operation other than
// END is zero-extended, and every result is synced (reg_bounds_sync).
// Operations whose range the kernel does not track (div, mod, shifts by a
// non-constant or out-of-range amount, MOV) give an unknown scalar, with
// no zero extension even for ALU32, as in the kernel. END follows the
// Linux 6.18.y stable kernel, which tracks byte swaps through the tnum
// (scalar_byte_swap).
//
// Both operands are pointers because this runs for every ALU instruction
// of every path: passing the two 64-byte scalars and the result by value
// cost more than most operations themselves. src may be s (r1 += r1, and
// NEG and END read s as their source): the steps below read the source
// after they start writing s, so such a source is copied first.
func (s *Scalar) ApplyALU(op ALUOp, src *Scalar) {
	if op.Op == aluNeg || op.Op == aluEnd || src == s {
		c := *s
		src = &c
	}
	if !rangeComputable(op, src) {
		*s = unknownScalar
		return
	}
	switch op.Op {
	case aluAdd:
		s.addUnsynced(src)
	case aluSub:
		d32, d64 := s.get32(), s.get64()
		d32.sub(src.get32())
		d64.sub(src.get64())
		s.set32(d32)
		s.set64(d64)
		s.Var = s.Var.Sub(src.Var)
	case aluNeg:
		z32, z64 := constIval[int32](uint32(0)), constIval[int64](uint64(0))
		z32.sub(src.get32())
		z64.sub(src.get64())
		s.set32(z32)
		s.set64(z64)
		s.Var = src.Var.Neg()
	case aluMul:
		d32, d64 := s.get32(), s.get64()
		s.Var = s.Var.Mul(src.Var)
		d32.mul(src.get32())
		d64.mul(src.get64())
		s.set32(d32)
		s.set64(d64)
	case aluAnd:
		s.Var = s.Var.And(src.Var)
		s.bitop(bitAnd, src)
	case aluOr:
		s.Var = s.Var.Or(src.Var)
		s.bitop(bitOr, src)
	case aluXor:
		s.Var = s.Var.Xor(src.Var)
		s.bitop(bitXor, src)
	case aluLsh:
		if op.Is64 {
			s.lsh64(src)
		} else {
			s.lsh32(src)
		}
	case aluRsh:
		if op.Is64 {
			s.rsh64(src)
		} else {
			s.rsh32(src)
		}
	case aluArsh:
		if op.Is64 {
			s.arsh64(src)
		} else {
			s.arsh32(src)
		}
	case aluEnd:
		s.byteSwap(op)
	}
	// END truncates by itself; a 64-bit END of the 32-bit class must not
	// be zero-extended.
	if !op.Is64 && op.Op != aluEnd {
		s.zext()
	}
	s.Sync()
}

// bitop applies the bounds of and/or/xor to both widths once dst.Var holds
// the result's tnum. The 64-bit step also narrows both widths by the new
// tnum, as the kernel's 64-bit helpers end with __update_reg_bounds.
func (s *Scalar) bitop(kind bitwise, src *Scalar) {
	sub := s.Var.Subreg()
	b32 := s.get32()
	b32.bitop(kind, src.get32(), uint32(sub.Value), uint32(sub.Mask), src.IsConst32(), s.IsConst32())
	s.set32(b32)
	if src.IsConst() && s.IsConst() {
		s.SetConst(s.Var.Value)
		return
	}
	b64 := s.get64()
	b64.bitop(kind, src.get64(), s.Var.Value, s.Var.Mask, false, false)
	s.set64(b64)
	s.updateBounds()
}

// lshBits32 sets the subregister bounds for a left shift by [umin, umax]
// (__scalar32_min_max_lsh): the signed range is lost; the unsigned range
// survives unless the top bit may be shifted out.
func (s *Scalar) lshBits32(umin, umax uint64) {
	s.S32Min, s.S32Max = minS32, maxS32
	if umax > subregBits-1 || uint64(s.U32Max) > uint64(1)<<(subregBits-1-umax) {
		s.U32Min, s.U32Max = 0, ^uint32(0)
		return
	}
	s.U32Min <<= umin
	s.U32Max <<= umax
}

// lsh32 is scalar32_min_max_lsh.
func (s *Scalar) lsh32(src *Scalar) {
	sub := s.Var.Subreg()
	s.lshBits32(uint64(src.U32Min), uint64(src.U32Max))
	s.Var = sub.Lsh(uint8(src.U32Min)).Subreg()
	s.set64(fullIval[int64, uint64]())
	s.update32()
}

// lshByHalf is the shift by exactly 32 that compilers emit to move a
// subregister into the upper half (then sign-extend it back with s>>32).
const lshByHalf = subregBits

// lsh64 is scalar_min_max_lsh. The 64-bit step reads the unshifted
// subregister bounds, so it runs first.
func (s *Scalar) lsh64(src *Scalar) {
	umin, umax := src.UMin, src.UMax
	// Moving the subregister into the upper half keeps its signed order,
	// negative bounds included (the 6.18 stable kernels dropped the old
	// non-negative condition), so the signed bounds follow the shift.
	if umin == lshByHalf && umax == lshByHalf {
		s.SMin = int64(s.S32Min) << lshByHalf
		s.SMax = int64(s.S32Max) << lshByHalf
	} else {
		full := fullIval[int64, uint64]()
		s.SMin, s.SMax = full.smin, full.smax
	}
	if s.UMax > uint64(1)<<(regBits-1-umax) {
		s.UMin, s.UMax = 0, ^uint64(0)
	} else {
		s.UMin <<= umin
		s.UMax <<= umax
	}
	s.lshBits32(umin, umax)
	s.Var = s.Var.Lsh(uint8(umin))
	s.updateBounds()
}

// rsh32 is scalar32_min_max_rsh: a logical shift keeps the unsigned range
// (shifted) and loses the signed one, which the tnum then recovers.
func (s *Scalar) rsh32(src *Scalar) {
	sub := s.Var.Subreg()
	umin, umax := src.U32Min, src.U32Max
	s.S32Min, s.S32Max = minS32, maxS32
	s.Var = sub.Rsh(uint8(umin))
	s.U32Min >>= umax
	s.U32Max >>= umin
	s.set64(fullIval[int64, uint64]())
	s.update32()
}

// rsh64 is scalar_min_max_rsh; the subregister depends on the bits shifted
// in from above, so it is recomputed from the tnum.
func (s *Scalar) rsh64(src *Scalar) {
	umin, umax := src.UMin, src.UMax
	s.SMin, s.SMax = fullIval[int64, uint64]().smin, fullIval[int64, uint64]().smax
	s.Var = s.Var.Rsh(uint8(umin))
	s.UMin >>= umax
	s.UMax >>= umin
	s.set32(fullIval[int32, uint32]())
	s.updateBounds()
}

// arsh32 is scalar32_min_max_arsh (the shift is a known constant): the
// signed range shifts, the unsigned one is recovered from the tnum.
func (s *Scalar) arsh32(src *Scalar) {
	shift := src.U32Min
	s.S32Min >>= shift
	s.S32Max >>= shift
	s.Var = s.Var.Subreg().Arsh(uint8(shift), subregBits)
	s.U32Min, s.U32Max = 0, ^uint32(0)
	s.set64(fullIval[int64, uint64]())
	s.update32()
}

// arsh64 is scalar_min_max_arsh.
func (s *Scalar) arsh64(src *Scalar) {
	shift := src.UMin
	s.SMin >>= shift
	s.SMax >>= shift
	s.Var = s.Var.Arsh(uint8(shift), regBits)
	s.UMin, s.UMax = 0, ^uint64(0)
	s.set32(fullIval[int32, uint32]())
	s.updateBounds()
}

// update32 narrows the subregister bounds by the tnum (__update_reg32_bounds).
func (s *Scalar) update32() {
	b := s.get32()
	sub := s.Var.Subreg()
	b.meetTnum(uint32(sub.Value), uint32(sub.Mask))
	s.set32(b)
}

// EndChangesValue reports whether a byte swap (END) changes its register
// on a little-endian machine: all do but a 64-bit TO_LE of the 32-bit
// class, which leaves the value as it is. scalar_byte_swap (since the 6.18
// stable fix "bpf: Reset register ID for BPF_END value tracking") breaks
// the register's scalar links only when it does.
func EndChangesValue(op ALUOp) bool {
	return op.Is64 || op.SrcX || op.Imm == swap16 || op.Imm == swap32
}

// byteSwap is the kernel's scalar_byte_swap on a little-endian machine:
// ALU64 END (bswap) and TO_BE swap the low Imm bits through the tnum and
// drop the ranges; TO_LE leaves the value; widths 16 and 32 then truncate
// (coerce_reg_to_size, which syncs; ScalarALU syncs once more, as the
// kernel does).
func (s *Scalar) byteSwap(op ALUOp) {
	if !EndChangesValue(op) {
		return
	}
	if op.Is64 || op.SrcX {
		s.Var = s.Var.Bswap(op.Imm)
		*s = s.Unbounded()
	}
	if op.Imm == swap16 || op.Imm == swap32 {
		*s = Truncate(*s, int(op.Imm)/8)
	}
}

// LinkedAdd is sync_linked_regs' "reg = known + delta": both widths' add
// and the tnum add, the zero extension of a link a 32-bit add made (zext),
// then one reg_bounds_sync. A sync between the add and the extension
// would learn 32-bit bounds from the unextended sum that the kernel never
// learns, and decide a later branch the kernel explores.
func LinkedAdd(known Scalar, delta uint64, zext bool) Scalar {
	d := ConstScalar(delta)
	known.addUnsynced(&d)
	if zext {
		known.zext()
	}
	known.Sync()
	return known
}

// addUnsynced is BPF_ADD's range and tnum arithmetic (scalar32_min_max_add,
// scalar_min_max_add, tnum_add) without the reg_bounds_sync that follows.
func (s *Scalar) addUnsynced(src *Scalar) {
	d32, d64 := s.get32(), s.get64()
	d32.add(src.get32())
	d64.add(src.get64())
	s.set32(d32)
	s.set64(d64)
	s.Var = s.Var.Add(src.Var)
}
