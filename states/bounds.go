package states

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"golang.org/x/exp/constraints"
)

// ival is one width's view of a scalar's range: signed and unsigned bounds
// on the 64-bit value (ival[int64, uint64]) or on its 32-bit subregister
// (ival[int32, uint32]). The bounds logic the two widths share is written
// once, over this type, the way the kernel writes it once for both.
type ival[S constraints.Signed, U constraints.Unsigned] struct {
	smin, smax S
	umin, umax U
}

type (
	ival64 = ival[int64, uint64]
	ival32 = ival[int32, uint32]
)

// Limits of a width, derived from its unsigned type.
func umaxOf[U constraints.Unsigned]() U                       { return ^U(0) }
func smaxOf[S constraints.Signed, U constraints.Unsigned]() S { return S(^U(0) >> 1) }
func sminOf[S constraints.Signed, U constraints.Unsigned]() S { return -smaxOf[S, U]() - 1 }
func signBitOf[U constraints.Unsigned]() U                    { return ^(^U(0) >> 1) }
func fullIval[S constraints.Signed, U constraints.Unsigned]() ival[S, U] {
	return ival[S, U]{smin: sminOf[S, U](), smax: smaxOf[S, U](), umax: umaxOf[U]()}
}

// constIval is the range of the single value v.
func constIval[S constraints.Signed, U constraints.Unsigned](v U) ival[S, U] {
	return ival[S, U]{smin: S(v), smax: S(v), umin: v, umax: v}
}

func (s *Scalar) get64() ival64 {
	return ival64{smin: s.SMin, smax: s.SMax, umin: s.UMin, umax: s.UMax}
}

func (s *Scalar) set64(b ival64) { s.SMin, s.SMax, s.UMin, s.UMax = b.smin, b.smax, b.umin, b.umax }

func (s *Scalar) get32() ival32 {
	return ival32{smin: s.S32Min, smax: s.S32Max, umin: s.U32Min, umax: s.U32Max}
}

func (s *Scalar) set32(b ival32) {
	s.S32Min, s.S32Max, s.U32Min, s.U32Max = b.smin, b.smax, b.umin, b.umax
}

// contains reports whether v lies inside all four bounds.
func (b ival[S, U]) contains(v U) bool {
	return b.umin <= v && v <= b.umax && b.smin <= S(v) && S(v) <= b.smax
}

// within reports whether every bound of cur lies inside b.
func (b ival[S, U]) within(cur ival[S, U]) bool {
	return b.umin <= cur.umin && b.umax >= cur.umax && b.smin <= cur.smin && b.smax >= cur.smax
}

// ordered reports whether min <= max in both domains.
func (b ival[S, U]) ordered() bool { return b.umin <= b.umax && b.smin <= b.smax }

// meetTnum narrows b by the known bits value/mask of the same width
// (__update_reg32_bounds / __update_reg64_bounds): the signed minimum sets
// an unknown sign bit, the signed maximum clears it.
func (b *ival[S, U]) meetTnum(value, mask U) {
	sign := signBitOf[U]()
	b.smin = max(b.smin, S(value|mask&sign))
	b.smax = min(b.smax, S(value|mask&^sign))
	b.umin = max(b.umin, value)
	b.umax = min(b.umax, value|mask)
}

// deduceSigns shares knowledge between the signed and unsigned bounds of
// one width. A range that does not cross the sign boundary is the same
// range read either way. A signed range that wraps from negative to
// positive is also used when the unsigned range lies entirely in one of its
// two halves; 6.18 stable kernels do this at both widths (the 32-bit case
// arrived with the backport that refines sign-crossing subregister ranges).
func (b *ival[S, U]) deduceSigns() {
	if S(b.umin) <= S(b.umax) {
		b.smin = max(b.smin, S(b.umin))
		b.smax = min(b.smax, S(b.umax))
	}
	if U(b.smin) <= U(b.smax) {
		b.umin = max(b.umin, U(b.smin))
		b.umax = min(b.umax, U(b.smax))
		return
	}
	switch {
	case b.umax < U(b.smin):
		// The unsigned range sits in the non-negative half.
		b.smin = S(b.umin)
		b.umax = min(b.umax, U(b.smax))
	case U(b.smax) < b.umin:
		// The unsigned range sits in the negative half.
		b.smax = S(b.umax)
		b.umin = max(b.umin, U(b.smin))
	}
}

// signedFromUnsigned sets the signed bounds from the unsigned ones when the
// unsigned range does not cross the sign boundary, else unbounds them.
func (b *ival[S, U]) signedFromUnsigned() {
	if S(b.umin) <= S(b.umax) {
		b.smin, b.smax = S(b.umin), S(b.umax)
		return
	}
	b.smin, b.smax = sminOf[S, U](), smaxOf[S, U]()
}

func addOverflows[T constraints.Integer](a, b T) (T, bool) {
	r := a + b
	var zero T
	if b > zero {
		return r, r < a
	}
	return r, r > a
}

func subOverflows[T constraints.Integer](a, b T) (T, bool) {
	r := a - b
	var zero T
	if b > zero {
		return r, r > a
	}
	return r, r < a
}

// mulOverflows multiplies in T and reports overflow. tmin is T's minimum
// (0 for unsigned types).
func mulOverflows[T constraints.Integer](a, b, tmin T) (T, bool) {
	r := a * b
	if a == 0 {
		return r, false
	}
	if r/a != b {
		return r, true
	}
	// The one signed case the division check misses: -1 * MIN.
	var zero T
	minusOne := zero - 1
	return r, minusOne < zero && a == minusOne && b == tmin
}

// add sets b to the range of b + src (scalar_min_max_add and its 32-bit
// twin). A signed overflow at either end loses the signed range. The
// unsigned range survives when both ends wrap, or neither does.
func (b *ival[S, U]) add(src ival[S, U]) {
	smin, o1 := addOverflows(b.smin, src.smin)
	smax, o2 := addOverflows(b.smax, src.smax)
	if o1 || o2 {
		b.smin, b.smax = sminOf[S, U](), smaxOf[S, U]()
	} else {
		b.smin, b.smax = smin, smax
	}
	umin, minWraps := addOverflows(b.umin, src.umin)
	umax, maxWraps := addOverflows(b.umax, src.umax)
	b.umin, b.umax = umin, umax
	if !minWraps && maxWraps {
		b.umin, b.umax = 0, umaxOf[U]()
	}
}

// sub sets b to the range of b - src (scalar_min_max_sub and its 32-bit
// twin), with the same wrap rules as add.
func (b *ival[S, U]) sub(src ival[S, U]) {
	smin, o1 := subOverflows(b.smin, src.smax)
	smax, o2 := subOverflows(b.smax, src.smin)
	if o1 || o2 {
		b.smin, b.smax = sminOf[S, U](), smaxOf[S, U]()
	} else {
		b.smin, b.smax = smin, smax
	}
	umin, minWraps := subOverflows(b.umin, src.umax)
	umax, maxWraps := subOverflows(b.umax, src.umin)
	b.umin, b.umax = umin, umax
	if minWraps && !maxWraps {
		b.umin, b.umax = 0, umaxOf[U]()
	}
}

// mul sets b to the range of b * src (scalar_min_max_mul and its 32-bit
// twin): the products of the ends, unless one may overflow.
func (b *ival[S, U]) mul(src ival[S, U]) {
	umax, o1 := mulOverflows(b.umax, src.umax, 0)
	umin, o2 := mulOverflows(b.umin, src.umin, 0)
	if o1 || o2 {
		b.umin, b.umax = 0, umaxOf[U]()
	} else {
		b.umin, b.umax = umin, umax
	}
	var prods [4]S
	overflow := false
	for i, p := range [4][2]S{{b.smin, src.smin}, {b.smin, src.smax}, {b.smax, src.smin}, {b.smax, src.smax}} {
		r, o := mulOverflows(p[0], p[1], sminOf[S, U]())
		prods[i], overflow = r, overflow || o
	}
	if overflow {
		b.smin, b.smax = sminOf[S, U](), smaxOf[S, U]()
		return
	}
	b.smin, b.smax = min(prods[0], prods[1], prods[2], prods[3]), max(prods[0], prods[1], prods[2], prods[3])
}

// bitwise is the operation of and, or, xor.
type bitwise uint8

const (
	bitAnd bitwise = iota
	bitOr
	bitXor
)

// bitop sets b to the range of the bitwise operation whose result has the
// known bits value/mask (already computed with the tnum operation), from
// the operand ranges b and src (scalar_min_max_and/or/xor and their 32-bit
// twins). When both operands are constants the result is the constant.
func (b *ival[S, U]) bitop(kind bitwise, src ival[S, U], value, mask U, srcKnown, dstKnown bool) {
	if srcKnown && dstKnown {
		*b = constIval[S](value)
		return
	}
	switch kind {
	case bitAnd:
		// The minimum comes from the known ones; the maximum is the
		// smaller of the operands' maxima.
		b.umin = value
		b.umax = min(b.umax, src.umax)
	case bitOr:
		// The minimum is the larger of the operands' minima; the maximum
		// sets every unknown bit.
		b.umin = max(b.umin, src.umin)
		b.umax = value | mask
	case bitXor:
		b.umin = value
		b.umax = value | mask
	}
	b.signedFromUnsigned()
}

// updateBounds narrows both widths' bounds by the tnum (__update_reg_bounds).
func (s *Scalar) updateBounds() {
	b32 := s.get32()
	sub := s.Var.Subreg()
	b32.meetTnum(uint32(sub.Value), uint32(sub.Mask))
	s.set32(b32)
	b64 := s.get64()
	b64.meetTnum(s.Var.Value, s.Var.Mask)
	s.set64(b64)
	s.singleMember()
}

// singleMember makes s a constant when its tnum has exactly one member in
// [UMin, UMax] (the tnum_step part of the kernel's __update_reg64_bounds).
func (s *Scalar) singleMember() {
	next := s.Var.next(s.UMin)
	uminIn := s.Var.Contains(s.UMin)
	top := s.Var.Value | s.Var.Mask
	switch {
	case uminIn && next > s.UMax:
		s.SetConst(s.UMin)
	case !uminIn && next == top:
		s.SetConst(top)
	case !uminIn && next <= s.UMax && s.Var.next(next) > s.UMax:
		s.SetConst(next)
	}
}

// deduce32 learns subregister bounds from the 64-bit bounds, then shares
// signed and unsigned knowledge within 32 bits (__reg32_deduce_bounds).
func (s *Scalar) deduce32() {
	b := s.get32()
	// When the upper 32 bits are the same across the whole 64-bit range,
	// the low 32 bits of its ends bound the subregister.
	if s.UMin>>subregBits == s.UMax>>subregBits {
		b.umin = max(b.umin, uint32(s.UMin))
		b.umax = min(b.umax, uint32(s.UMax))
		if int32(s.UMin) <= int32(s.UMax) {
			b.smin = max(b.smin, int32(s.UMin))
			b.smax = min(b.smax, int32(s.UMax))
		}
	}
	if s.SMin>>subregBits == s.SMax>>subregBits {
		if uint32(s.SMin) <= uint32(s.SMax) {
			b.umin = max(b.umin, uint32(s.SMin))
			b.umax = min(b.umax, uint32(s.SMax))
		}
		if int32(s.SMin) <= int32(s.SMax) {
			b.smin = max(b.smin, int32(s.SMin))
			b.smax = min(b.smax, int32(s.SMax))
		}
	}
	// When the upper 32 bits take two consecutive values and the low 32
	// bits go from negative to non-negative, the ends still bound the
	// subregister as signed values.
	if uint32(s.UMin>>subregBits)+1 == uint32(s.UMax>>subregBits) &&
		int32(s.UMin) < 0 && int32(s.UMax) >= 0 {
		b.smin = max(b.smin, int32(s.UMin))
		b.smax = min(b.smax, int32(s.UMax))
	}
	if uint32(s.SMin>>subregBits)+1 == uint32(s.SMax>>subregBits) &&
		int32(s.SMin) < 0 && int32(s.SMax) >= 0 {
		b.smin = max(b.smin, int32(s.SMin))
		b.smax = min(b.smax, int32(s.SMax))
	}
	b.deduceSigns()
	s.set32(b)
}

// deduce64 shares signed and unsigned knowledge within 64 bits
// (__reg64_deduce_bounds).
func (s *Scalar) deduce64() {
	b := s.get64()
	b.deduceSigns()
	s.set64(b)
}

// deduceMixed tightens the 64-bit bounds from the subregister's
// (__reg_deduce_mixed_bounds): the subregister bounds replace the low 32
// bits of the 64-bit ends when that narrows them.
func (s *Scalar) deduceMixed() {
	const high = ^uint64(subregMask)
	s.UMin = max(s.UMin, s.UMin&high|uint64(s.U32Min))
	s.UMax = min(s.UMax, s.UMax&high|uint64(s.U32Max))
	s.SMin = max(s.SMin, int64(uint64(s.SMin)&high|uint64(s.U32Min)))
	s.SMax = min(s.SMax, int64(uint64(s.SMax)&high|uint64(s.U32Max)))
	if uint32(s.S32Min) <= uint32(s.S32Max) {
		s.UMin = max(s.UMin, s.UMin&high|uint64(uint32(s.S32Min)))
		s.UMax = min(s.UMax, s.UMax&high|uint64(uint32(s.S32Max)))
		s.SMin = max(s.SMin, int64(uint64(s.SMin)&high|uint64(uint32(s.S32Min))))
		s.SMax = min(s.SMax, int64(uint64(s.SMax)&high|uint64(uint32(s.S32Max))))
	}
	// After a sign-extending load the value lies in [S32_MIN, S32_MAX] as
	// a 64-bit number; if its subregister is non-negative, the upper half
	// cannot be all ones, so the value equals its non-negative subregister.
	if s.S32Min >= 0 && s.SMin >= minS32 && s.SMax <= maxS32 {
		s.SMin, s.SMax = int64(s.S32Min), int64(s.S32Max)
		s.UMin, s.UMax = uint64(s.S32Min), uint64(s.S32Max)
		s.Var = s.Var.Intersect(TnumRange(uint64(s.SMin), uint64(s.SMax)))
	}
}

// Limits of the subregister as 64-bit numbers.
const (
	minS32 = -1 << 31
	maxS32 = 1<<31 - 1
)

// boundOffset learns known bits from the unsigned bounds of both widths
// (__reg_bound_offset).
func (s *Scalar) boundOffset() {
	v64 := s.Var.Intersect(TnumRange(s.UMin, s.UMax))
	v32 := v64.Subreg().Intersect(TnumRange(uint64(s.U32Min), uint64(s.U32Max)))
	s.Var = v64.ClearSubreg().Or(v32)
}

// Sync makes the bounds and the tnum of s agree, as the kernel's
// reg_bounds_sync does: bounds from the tnum, two rounds of deduction
// between the eight bounds, known bits from the bounds, and bounds from the
// improved tnum again. It is not idempotent: call it exactly where the
// kernel does.
func (s *Scalar) Sync() {
	if s.syncFixpoint() {
		return
	}
	h := s.memoHash()
	i := h >> (64 - syncMemoBits)
	slot := &syncMemo[i]
	if m := slot.Load(); m != nil && m.in.Equal(s) {
		*s = m.out
		return
	}
	if seen := &syncSeen[i]; seen.Load() != h {
		seen.Store(h)
		s.sync()
		return
	}
	r := new(syncResult)
	r.in = *s
	s.sync()
	r.out = *s
	slot.Store(r)
}

// syncResult is one remembered application of the sync sequence: out is
// what it makes of in.
type syncResult struct{ in, out Scalar }

// syncMemo remembers recent results of the sync sequence, a pure function
// of the scalar, by a hash of the input. The same bounds are synced over
// and over (a loop body's comparisons and arithmetic on each unrolled or
// re-explored path): 97% of the corpus's non-trivial Syncs, and of
// test_verif_scale2's, find their input here, and a hit costs a hash and a
// 64-byte comparison where the sequence costs hundreds of instructions.
// Verifications running in parallel share it: each slot is an atomic
// pointer to an immutable result, so a reader sees a whole entry or none,
// and a collision only costs a recomputation.
var syncMemo [1 << syncMemoBits]atomic.Pointer[syncResult]

// syncSeen admits inputs to syncMemo: per slot, the hash of the last input
// that missed there and was not stored. An input is stored the second time
// it misses in a row at its slot. A loop whose counter grows syncs a new
// scalar at every iteration (short_loop1: 482k misses against 115k hits
// when every miss was stored): each stored miss was an allocation, and the
// collections and write barriers they brought cost more than the sequence
// (255 -> 224 ms for that program). The corpus, 99% hits, does not notice.
var syncSeen [1 << syncMemoBits]atomic.Uint64

// syncMemoBits sizes syncMemo: 1024 slots.
const syncMemoBits = 10

// memoHash hashes the ten fields of s: each of its eight words
// (scalarWords) is rotated in and added, and a multiply mixes the sum into
// the top bits, which index syncMemo.
func (s *Scalar) memoHash() uint64 {
	const r = 23
	w := scalarWords(s)
	h := w[0]
	h = bits.RotateLeft64(h, r) + w[1]
	h = bits.RotateLeft64(h, r) + w[2]
	h = bits.RotateLeft64(h, r) + w[3]
	h = bits.RotateLeft64(h, r) + w[4]
	h = bits.RotateLeft64(h, r) + w[5]
	h = bits.RotateLeft64(h, r) + w[6]
	h = bits.RotateLeft64(h, r) + w[7]
	return h * 0x9e3779b97f4a7c15
}

// scalarWords views s as eight 64-bit words: the tnum, the four 64-bit
// bounds and the four 32-bit bounds two to a word. A Scalar is 64 bytes
// of fields without padding (the array types below fail to compile
// otherwise), so the view covers every field and nothing else, in
// whichever byte order: the memo's hash reads it, where combining two
// 32-bit fields into one word by hand cost four instructions more per
// word. (Equal compared word by word, without its early exit on the tnum,
// cost more: +15M instructions on the corpus.)
func scalarWords(s *Scalar) *[8]uint64 { return (*[8]uint64)(unsafe.Pointer(s)) }

// Scalar must be exactly eight words for scalarWords.
var (
	_ [unsafe.Sizeof(Scalar{}) - 64]struct{}
	_ [64 - unsafe.Sizeof(Scalar{})]struct{}
)

// syncFixpoint reports whether s is a scalar Sync leaves as it is and
// that is cheap to recognise: a constant with all eight bounds on it, or
// nothing known at all. Most scalars synced are one or the other (the
// results of ALU operations on constants, loads of unknown data).
//
// Both tests compare field by field, cheapest first: building the 64-byte
// ConstScalar to compare whole structs (a memeq call) cost 3% of the
// scale programs' time.
func (s *Scalar) syncFixpoint() bool {
	if v := s.Var.Value; s.Var.Mask == 0 {
		return s.UMin == v && s.UMax == v && s.SMin == int64(v) && s.SMax == int64(v) &&
			s.U32Min == uint32(v) && s.U32Max == uint32(v) && s.S32Min == int32(v) && s.S32Max == int32(v)
	}
	// Field by field with early exits, not Equal: most scalars that get
	// here differ from the unknown one at the first field.
	u := &unknownScalar
	return s.Var == u.Var && s.UMin == u.UMin && s.UMax == u.UMax && s.SMin == u.SMin && s.SMax == u.SMax &&
		s.U32Min == u.U32Min && s.U32Max == u.U32Max && s.S32Min == u.S32Min && s.S32Max == u.S32Max
}

// Equal reports whether s and o are the same scalar. It is s == o without
// the call: Go compares a 64-byte struct with memequal's generic loop,
// which was 2-3% of the scale programs' time (memo lookups of Sync, the
// exact register comparisons); the tnum compared, the differences of the
// eight bounds or-ed together, it takes a score of instructions, inlined.
func (s *Scalar) Equal(o *Scalar) bool {
	// ^ and | bind equally tight, left to right: each xor needs its
	// parentheses.
	d := (s.UMin ^ o.UMin) | (s.UMax ^ o.UMax) |
		uint64(s.SMin^o.SMin) | uint64(s.SMax^o.SMax)
	d32 := (s.U32Min ^ o.U32Min) | (s.U32Max ^ o.U32Max) |
		uint32(s.S32Min^o.S32Min) | uint32(s.S32Max^o.S32Max)
	return s.Var == o.Var && d|uint64(d32) == 0
}

// sync is reg_bounds_sync's sequence.
func (s *Scalar) sync() {
	s.updateBounds()
	for range deduceRounds {
		s.deduce32()
		s.deduce64()
		s.deduceMixed()
	}
	s.boundOffset()
	s.updateBounds()
}

// deduceRounds is how many times reg_bounds_sync runs __reg_deduce_bounds:
// the second round propagates what the first learned across widths, the
// third (6.18) carries a 64-bit result learned from 32-bit bounds back
// into the 32-bit bounds (a subregister range [0xffffffc1, 0xfffffffe]
// plus 0x40 is [1, 62] only after it).
const deduceRounds = 3

// RangeWithin reports whether all eight bounds of cur lie inside those of s
// (the kernel's range_within(old=s, cur)).
func (s Scalar) RangeWithin(cur Scalar) bool {
	return s.get64().within(cur.get64()) && s.get32().within(cur.get32())
}

// Valid reports whether the bounds of s are consistent, the checks of the
// kernel's reg_bounds_sanity_check: each min is at most its max, and a
// constant tnum (or subregister) equals its bounds.
func (s Scalar) Valid() bool { return s.Sane() }

// Sane is Valid without the copy: Violation() == "", field by field. The
// kernel asks it of the destination of every ALU instruction and load,
// where Violation, which builds the bounds as intervals, cost half as
// much again (1.7% of a corpus pass's instructions against 1.1%).
func (s *Scalar) Sane() bool {
	if s.UMin > s.UMax || s.SMin > s.SMax || s.U32Min > s.U32Max || s.S32Min > s.S32Max {
		return false
	}
	return uint32(s.Var.Mask) != 0 || s.constSane()
}

// constSane is Sane's test of a scalar whose subregister tnum is
// constant: the subregister's bounds, and with a constant tnum the 64-bit
// bounds, must be that constant.
func (s *Scalar) constSane() bool {
	v := s.Var.Value
	return s.U32Min == uint32(v) && s.U32Max == uint32(v) && s.S32Min == int32(v) && s.S32Max == int32(v) &&
		(s.Var.Mask != 0 || s.UMin == v && s.UMax == v && s.SMin == int64(v) && s.SMax == int64(v))
}

// Violation names the first check of reg_bounds_sanity_check that s
// fails, in the kernel's words, or is "" when its bounds are consistent.
// Every conditional jump asks it of up to four scalars: s is a pointer,
// not a 64-byte copy.
func (s *Scalar) Violation() string {
	switch {
	case !s.get64().ordered() || !s.get32().ordered():
		return "range bounds violation"
	case s.Var.IsConst() && s.get64() != constIval[int64](s.Var.Value):
		return "const tnum out of sync with range bounds"
	case s.IsConst32() && s.get32() != constIval[int32](uint32(s.Var.Value)):
		return "const subreg tnum out of sync with range bounds"
	}
	return ""
}

// Contains reports whether the concrete 64-bit value v is a member of s:
// it matches the tnum and lies inside all eight bounds.
func (s Scalar) Contains(v uint64) bool {
	return s.Var.Contains(v) && s.get64().contains(v) && s.get32().contains(uint32(v))
}

// Unbounded returns s with all eight bounds reset and the tnum kept (the
// kernel's __mark_reg_unbounded, applied when a register fails
// reg_bounds_sanity_check).
func (s Scalar) Unbounded() Scalar {
	s.set64(fullIval[int64, uint64]())
	s.set32(fullIval[int32, uint32]())
	return s
}
