package states

import (
	"math/bits"

	"golang.org/x/exp/constraints"
)

// Jump operations (the high four bits of a JMP or JMP32 opcode), the same
// values as package insn's Jmp constants, and the kernel's private
// "JSET is false" condition: JSET with the source bit set.
const (
	jmpJEQ     uint8 = 0x10
	jmpJGT     uint8 = 0x20
	jmpJGE     uint8 = 0x30
	jmpJSET    uint8 = 0x40
	jmpJNE     uint8 = 0x50
	jmpJSGT    uint8 = 0x60
	jmpJSGE    uint8 = 0x70
	jmpJLT     uint8 = 0xa0
	jmpJLE     uint8 = 0xb0
	jmpJSLT    uint8 = 0xc0
	jmpJSLE    uint8 = 0xd0
	jmpSrcX    uint8 = 0x08
	jmpJNotSet       = jmpJSET | jmpSrcX
)

// Results of BranchTaken.
const (
	BranchNever   = 0
	BranchAlways  = 1
	BranchUnknown = -1
)

// NegateJmp returns the condition that holds on the other edge of a jump
// on op (the kernel's rev_opcode). JSET has no opposite in the ISA; its
// negation is JSET|BPF_X (0x48), which only Refine understands. Unknown
// operations give 0.
func NegateJmp(op uint8) uint8 {
	switch op {
	case jmpJEQ:
		return jmpJNE
	case jmpJNE:
		return jmpJEQ
	case jmpJSET:
		return jmpJNotSet
	case jmpJNotSet:
		return jmpJSET
	case jmpJGE:
		return jmpJLT
	case jmpJGT:
		return jmpJLE
	case jmpJLE:
		return jmpJGT
	case jmpJLT:
		return jmpJGE
	case jmpJSGE:
		return jmpJSLT
	case jmpJSGT:
		return jmpJSLE
	case jmpJSLE:
		return jmpJSGT
	case jmpJSLT:
		return jmpJSGE
	}
	return 0
}

// FlipJmp returns the condition that holds with the operands swapped
// ("a op b" is "b FlipJmp(op) a"; the kernel's flip_opcode). Unknown
// operations give 0.
func FlipJmp(op uint8) uint8 {
	switch op &^ jmpSrcX {
	case jmpJEQ, jmpJNE, jmpJSET:
		return op &^ jmpSrcX
	case jmpJGE:
		return jmpJLE
	case jmpJGT:
		return jmpJLT
	case jmpJLE:
		return jmpJGE
	case jmpJLT:
		return jmpJGT
	case jmpJSGE:
		return jmpJSLE
	case jmpJSGT:
		return jmpJSLT
	case jmpJSLE:
		return jmpJSGE
	case jmpJSLT:
		return jmpJSGT
	}
	return 0
}

// cmpView is one operand of a comparison at the comparison's width: its
// tnum and its bounds widened to 64 bits.
type cmpView struct {
	t          Tnum
	umin, umax uint64
	smin, smax int64
}

func viewOf(s *Scalar, is32 bool) cmpView {
	if is32 {
		return cmpView{t: s.Var.Subreg(), umin: uint64(s.U32Min), umax: uint64(s.U32Max),
			smin: int64(s.S32Min), smax: int64(s.S32Max)}
	}
	return cmpView{t: s.Var, umin: s.UMin, umax: s.UMax, smin: s.SMin, smax: s.SMax}
}

// disjoint32 reports whether the subregister ranges of a and b cannot meet.
func disjoint32(a, b *Scalar) bool {
	return a.U32Min > b.U32Max || a.U32Max < b.U32Min ||
		a.S32Min > b.S32Max || a.S32Max < b.S32Min
}

// BranchTaken reports whether "a op b" holds for every pair of members
// (BranchAlways), for none (BranchNever), or is undecided (BranchUnknown),
// as the kernel's is_scalar_branch_taken decides it from tnums and ranges.
// With is32 the comparison is on the subregisters (JMP32). op is a jump
// operation, or NegateJmp(JSET). The operands are pointers: every
// conditional jump on scalars asks, and copies of the two 64-byte scalars
// cost more than most answers.
func BranchTaken(op uint8, a, b *Scalar, is32 bool) int {
	v1, v2 := viewOf(a, is32), viewOf(b, is32)
	switch op {
	case jmpJEQ, jmpJNE:
		// The decision if the values cannot be equal; JNE is its negation.
		differ, equal := BranchAlways, BranchNever
		if op == jmpJEQ {
			differ, equal = BranchNever, BranchAlways
		}
		switch {
		case v1.t.IsConst() && v2.t.IsConst():
			if v1.t.Value == v2.t.Value {
				return equal
			}
			return differ
		case !v1.t.overlaps(v2.t),
			v1.umin > v2.umax || v1.umax < v2.umin,
			v1.smin > v2.smax || v1.smax < v2.smin,
			!is32 && disjoint32(a, b):
			return differ
		}
	case jmpJSET, jmpJNotSet:
		if !v2.t.IsConst() {
			v1, v2 = v2, v1
		}
		if !v2.t.IsConst() {
			return BranchUnknown
		}
		set, clear := BranchAlways, BranchNever
		if op == jmpJNotSet {
			set, clear = BranchNever, BranchAlways
		}
		if v1.t.Value&v2.t.Value != 0 {
			return set
		}
		if (v1.t.Value|v1.t.Mask)&v2.t.Value == 0 {
			return clear
		}
	case jmpJGT:
		return decide(v1.umin > v2.umax, v1.umax <= v2.umin)
	case jmpJSGT:
		return decide(v1.smin > v2.smax, v1.smax <= v2.smin)
	case jmpJLT:
		return decide(v1.umax < v2.umin, v1.umin >= v2.umax)
	case jmpJSLT:
		return decide(v1.smax < v2.smin, v1.smin >= v2.smax)
	case jmpJGE:
		return decide(v1.umin >= v2.umax, v1.umax < v2.umin)
	case jmpJSGE:
		return decide(v1.smin >= v2.smax, v1.smax < v2.smin)
	case jmpJLE:
		return decide(v1.umax <= v2.umin, v1.umin > v2.umax)
	case jmpJSLE:
		return decide(v1.smax <= v2.smin, v1.smin > v2.smax)
	}
	return BranchUnknown
}

func decide(always, never bool) int {
	switch {
	case always:
		return BranchAlways
	case never:
		return BranchNever
	}
	return BranchUnknown
}

// constAt returns the value of s at the comparison's width and whether s
// is a constant there (is_reg_const / reg_const_value).
func constAt(s *Scalar, is32 bool) (uint64, bool) {
	t := s.Var
	if is32 {
		t = t.Subreg()
	}
	return t.Value, t.IsConst()
}

// Refine narrows a and b to the pairs for which "a op b" holds, as the
// kernel's regs_refine_cond_op followed by reg_bounds_sync of both does
// for one edge of a conditional jump; op is a jump operation or
// NegateJmp(JSET). ok is false when a result fails the kernel's
// reg_bounds_sanity_check, which happens when the edge is infeasible; the
// 6.18 kernel then goes on with that register's Unbounded() bounds.
func Refine(op uint8, a, b Scalar, is32 bool) (Scalar, Scalar, bool) {
	RefineInPlace(op, &a, &b, is32)
	return a, b, a.Valid() && b.Valid()
}

// RefineInPlace is Refine on two distinct scalars in place (the registers
// of one edge), without the sanity check, which the caller makes: each
// conditional jump refines two pairs, and the value form copied four
// 64-byte scalars in and out.
func RefineInPlace(op uint8, a, b *Scalar, is32 bool) {
	refineOperands(op, a, b, is32)
	a.Sync()
	b.Sync()
}

// RefineSame is Refine for a register compared with itself ("if r4 s> r4").
// The kernel refines it through two pointers to the same register, so each
// narrowing sees the ones made before it: "r s< r" lowers the maximum and
// then raises the minimum of the one value, where Refine on two copies
// would keep only one of the two. Both operands are then synced, which for
// one register is two syncs in a row.
func RefineSame(op uint8, a Scalar, is32 bool) (Scalar, bool) {
	refineOperands(op, &a, &a, is32)
	a.Sync()
	a.Sync()
	return a, a.Valid()
}

// refineOperands is regs_refine_cond_op: it narrows *r1 and *r2, which may
// be the same scalar, in place.
func refineOperands(op uint8, r1, r2 *Scalar, is32 bool) {
	switch op {
	case jmpJGE, jmpJGT, jmpJSGE, jmpJSGT:
		op = FlipJmp(op)
		r1, r2 = r2, r1
	}
	switch op {
	case jmpJEQ:
		refineEq(r1, r2, is32)
	case jmpJNE:
		refineNe(r1, r2, is32)
	case jmpJSET:
		if _, ok := constAt(r2, is32); !ok {
			r1, r2 = r2, r1
		}
		val, ok := constAt(r2, is32)
		// Only a single tested bit is known to be set afterwards.
		if !ok || bits.OnesCount64(val) != 1 {
			break
		}
		if is32 {
			r1.Var = r1.Var.WithSubreg(r1.Var.Subreg().Or(TnumConst(val)))
		} else {
			r1.Var = r1.Var.Or(TnumConst(val))
		}
	case jmpJNotSet:
		if _, ok := constAt(r2, is32); !ok {
			r1, r2 = r2, r1
		}
		val, ok := constAt(r2, is32)
		if !ok {
			break
		}
		// The ranges are dropped first so that a dead edge cannot leave
		// them contradicting the narrowed tnum.
		*r1 = r1.Unbounded()
		if is32 {
			r1.Var = r1.Var.WithSubreg(r1.Var.Subreg().And(TnumConst(^val)))
		} else {
			r1.Var = r1.Var.And(TnumConst(^val))
		}
	case jmpJLE, jmpJLT, jmpJSLE, jmpJSLT:
		refineLess(op, r1, r2, is32)
	}
}

// refineEq gives both operands the intersection of their ranges and tnums.
func refineEq(r1, r2 *Scalar, is32 bool) {
	if is32 {
		b := meetIval(r1.get32(), r2.get32())
		r1.set32(b)
		r2.set32(b)
		t := r1.Var.Subreg().Intersect(r2.Var.Subreg())
		r1.Var = r1.Var.WithSubreg(t)
		r2.Var = r2.Var.WithSubreg(t)
		return
	}
	b := meetIval(r1.get64(), r2.get64())
	r1.set64(b)
	r2.set64(b)
	r1.Var = r1.Var.Intersect(r2.Var)
	r2.Var = r1.Var
}

func meetIval[S constraints.Signed, U constraints.Unsigned](a, b ival[S, U]) ival[S, U] {
	return ival[S, U]{smin: max(a.smin, b.smin), smax: min(a.smax, b.smax),
		umin: max(a.umin, b.umin), umax: min(a.umax, b.umax)}
}

// refineNe drops a constant operand's value from the other's range when it
// sits at one of its ends.
func refineNe(r1, r2 *Scalar, is32 bool) {
	if _, ok := constAt(r2, is32); !ok {
		r1, r2 = r2, r1
	}
	val, ok := constAt(r2, is32)
	if !ok {
		return
	}
	if is32 {
		b := r1.get32()
		b.excludeEnd(uint32(val))
		r1.set32(b)
		return
	}
	b := r1.get64()
	b.excludeEnd(val)
	r1.set64(b)
}

// excludeEnd moves any bound equal to v one step inwards.
func (b *ival[S, U]) excludeEnd(v U) {
	if b.umin == v {
		b.umin++
	}
	if b.umax == v {
		b.umax--
	}
	if b.smin == S(v) {
		b.smin++
	}
	if b.smax == S(v) {
		b.smax--
	}
}

// refineLess narrows for "r1 < r2" or "r1 <= r2", unsigned or signed:
// r1's maximum by r2's, r2's minimum by r1's.
// When r1 and r2 are the same scalar, both narrowings apply to its one set
// of bounds, the second seeing the first.
func refineLess(op uint8, r1, r2 *Scalar, is32 bool) {
	if is32 {
		b1, b2 := r1.get32(), r2.get32()
		if r1 == r2 {
			lessBounds(op, &b1, &b1)
			r1.set32(b1)
			return
		}
		lessBounds(op, &b1, &b2)
		r1.set32(b1)
		r2.set32(b2)
		return
	}
	b1, b2 := r1.get64(), r2.get64()
	if r1 == r2 {
		lessBounds(op, &b1, &b1)
		r1.set64(b1)
		return
	}
	lessBounds(op, &b1, &b2)
	r1.set64(b1)
	r2.set64(b2)
}

func lessBounds[S constraints.Signed, U constraints.Unsigned](op uint8, b1, b2 *ival[S, U]) {
	switch op {
	case jmpJLE:
		b1.umax = min(b1.umax, b2.umax)
		b2.umin = max(b1.umin, b2.umin)
	case jmpJLT:
		b1.umax = min(b1.umax, b2.umax-1)
		b2.umin = max(b1.umin+1, b2.umin)
	case jmpJSLE:
		b1.smax = min(b1.smax, b2.smax)
		b2.smin = max(b1.smin, b2.smin)
	case jmpJSLT:
		b1.smax = min(b1.smax, b2.smax-1)
		b2.smin = max(b1.smin+1, b2.smin)
	}
}
