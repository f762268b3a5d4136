package states

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// allALUOps lists every operation ScalarALU accepts, in both classes,
// including sdiv/smod (Off 1), NEG, and the END/bswap widths.
func allALUOps() []ALUOp {
	var ops []ALUOp
	for _, is64 := range []bool{false, true} {
		for _, code := range []uint8{aluAdd, aluSub, aluMul, aluDiv, aluOr, aluAnd, aluLsh, aluRsh, aluNeg, aluMod, aluXor, aluArsh} {
			ops = append(ops, ALUOp{Op: code, Is64: is64})
			if code == aluDiv || code == aluMod {
				ops = append(ops, ALUOp{Op: code, Is64: is64, Off: 1})
			}
		}
		for _, width := range []int32{16, 32, 64} {
			ops = append(ops, ALUOp{Op: aluEnd, Is64: is64, Imm: width})
			if !is64 {
				ops = append(ops, ALUOp{Op: aluEnd, Imm: width, SrcX: true})
			}
		}
	}
	return ops
}

// checkALU checks one concrete instance of op against ScalarALU.
func checkALU(t *testing.T, op ALUOp, dst, src Scalar, x, y uint64) {
	t.Helper()
	got := ScalarALU(op, dst, src)
	want := evalALU(op, x, y)
	if !got.Valid() || !got.Contains(want) {
		t.Fatalf("%+v: dst %+v (x=%#x) src %+v (y=%#x): result %+v misses %#x (valid %v)",
			op, dst, x, src, y, got, want, got.Valid())
	}
}

func TestScalarALUSound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, op := range allALUOps() {
		for range 3000 {
			dst, x := randScalar(r)
			src, y := randScalar(r)
			if op.Op == aluLsh || op.Op == aluRsh || op.Op == aluArsh {
				if r.IntN(2) == 0 {
					y = uint64(r.IntN(64))
					src = ConstScalar(y)
				}
			}
			x = randMember(r, dst, x)
			y = randMember(r, src, y)
			checkALU(t, op, dst, src, x, y)
		}
	}
}

func TestSyncSound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		s, x := randScalar(r)
		if !s.Valid() || !s.Contains(x) {
			t.Fatalf("randScalar gave %+v without its member %#x", s, x)
		}
	}
}

func TestExtendSound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		s, x := randScalar(r)
		x = randMember(r, s, x)
		for _, size := range []int{1, 2, 4} {
			if got, want := SignExtend(s, size, true), uint64(signExtendFrom(x, size)); !got.Valid() || !got.Contains(want) {
				t.Fatalf("SignExtend(%+v, %d, 64) = %+v misses %#x", s, size, got, want)
			}
			if got, want := Truncate(s, size), x&(1<<(uint(size)*8)-1); !got.Valid() || !got.Contains(want) {
				t.Fatalf("Truncate(%+v, %d) = %+v misses %#x", s, size, got, want)
			}
		}
		for _, size := range []int{1, 2} {
			want := uint64(uint32(signExtendFrom(x, size)))
			if got := SignExtend(s, size, false); !got.Valid() || !got.Contains(want) {
				t.Fatalf("SignExtend(%+v, %d, 32) = %+v misses %#x", s, size, got, want)
			}
		}
		for _, size := range []int{1, 2, 4} {
			if got, want := SignExtendSubreg(s, size), uint64(signExtendFrom(x, size)); !got.Valid() || !got.Contains(want) {
				t.Fatalf("SignExtendSubreg(%+v, %d) = %+v misses %#x", s, size, got, want)
			}
		}
		if got, want := ZeroExtend32(s), uint64(uint32(x)); !got.Valid() || !got.Contains(want) {
			t.Fatalf("ZeroExtend32(%+v) = %+v misses %#x", s, got, want)
		}
	}
}

// neg is the two's complement of v, for negative constants.
func neg(v uint64) uint64 { return -v }

// urange returns the synced scalar of the unsigned range [lo, hi].
func urange(lo, hi uint64) Scalar {
	s := UnknownScalar()
	s.UMin, s.UMax = lo, hi
	s.Sync()
	return s
}

// sc builds a scalar from all its fields, for expectations.
func sc(v, m uint64, smin, smax int64, umin, umax uint64, s32min, s32max int32, u32min, u32max uint32) Scalar {
	return Scalar{Var: Tnum{v, m}, SMin: smin, SMax: smax, UMin: umin, UMax: umax,
		S32Min: s32min, S32Max: s32max, U32Min: u32min, U32Max: u32max}
}

// small is the scalar of [lo, hi] within [0, 2^31) in every view.
func small(v, m uint64, lo, hi uint64) Scalar {
	return sc(v, m, int64(lo), int64(hi), lo, hi, int32(lo), int32(hi), uint32(lo), uint32(hi))
}

func TestScalarALU(t *testing.T) {
	const minusOne = math.MaxUint64
	tests := []struct {
		name     string
		op       ALUOp
		dst, src Scalar
		want     Scalar
	}{
		{"add const", ALUOp{Op: aluAdd, Is64: true}, urange(0, 10), ConstScalar(5), small(0, 0xf, 5, 15)},
		{"add wraps both ends", ALUOp{Op: aluAdd, Is64: true}, urange(minusOne-1, minusOne), ConstScalar(2), small(0, 1, 0, 1)},
		{"and mask", ALUOp{Op: aluAnd, Is64: true}, UnknownScalar(), ConstScalar(0xff), small(0, 0xff, 0, 0xff)},
		{"and consts", ALUOp{Op: aluAnd, Is64: true}, ConstScalar(0xf0), ConstScalar(0x3c), ConstScalar(0x30)},
		{"or const", ALUOp{Op: aluOr, Is64: true}, urange(0, 3), ConstScalar(4), small(4, 3, 4, 7)},
		{"xor const", ALUOp{Op: aluXor, Is64: true}, urange(0, 3), ConstScalar(1), small(0, 3, 0, 3)},
		{"lsh", ALUOp{Op: aluLsh, Is64: true}, urange(0, 3), ConstScalar(2), small(0, 0xc, 0, 12)},
		{"rsh unknown", ALUOp{Op: aluRsh, Is64: true}, UnknownScalar(), ConstScalar(60), small(0, 0xf, 0, 15)},
		{"arsh negative const", ALUOp{Op: aluArsh, Is64: true}, ConstScalar(neg(16)), ConstScalar(2), ConstScalar(neg(4))},
		{"arsh32 negative const", ALUOp{Op: aluArsh}, ConstScalar(0x80000000), ConstScalar(4), ConstScalar(0xf8000000)},
		{"neg range", ALUOp{Op: aluNeg, Is64: true}, urange(1, 5), Scalar{},
			sc(0xfffffffffffffff8, 7, -5, -1, minusOne-4, minusOne, -5, -1, math.MaxUint32-4, math.MaxUint32)},
		{"mul ranges", ALUOp{Op: aluMul, Is64: true}, urange(2, 3), urange(4, 5), small(8, 7, 8, 15)},
		{"add32 wraps to zero", ALUOp{Op: aluAdd}, ConstScalar(math.MaxUint32), ConstScalar(1), ConstScalar(0)},
		{"sub32 zero-extends", ALUOp{Op: aluSub}, ConstScalar(0), ConstScalar(1), ConstScalar(math.MaxUint32)},
		{"div unknown", ALUOp{Op: aluDiv, Is64: true}, urange(0, 10), ConstScalar(2), UnknownScalar()},
		{"div32 not zero-extended", ALUOp{Op: aluDiv}, urange(0, 10), ConstScalar(2), UnknownScalar()},
		// The next cases repeat what Linux 6.18.44 logs for the same
		// instructions on "r0 &= 7".
		{"kernel be16", ALUOp{Op: aluEnd, Imm: 16, SrcX: true}, urange(0, 7), Scalar{}, small(0, 0x700, 0, 0x700)},
		{"kernel neg", ALUOp{Op: aluNeg, Is64: true}, urange(0, 7), Scalar{},
			sc(0, math.MaxUint64, -7, 0, 0, math.MaxUint64, -7, 0, 0, math.MaxUint32)},
		{"le16 truncates", ALUOp{Op: aluEnd, Imm: 16}, ConstScalar(0x12345), Scalar{}, ConstScalar(0x2345)},
		{"bswap64", ALUOp{Op: aluEnd, Is64: true, Imm: 64}, ConstScalar(0x0102), Scalar{}, ConstScalar(0x0201_0000_0000_0000)},
		{"le64 leaves the value", ALUOp{Op: aluEnd, Imm: 64}, urange(3, 9), Scalar{}, urange(3, 9)},
		{"shift by variable", ALUOp{Op: aluLsh, Is64: true}, ConstScalar(1), urange(0, 3), UnknownScalar()},
		{"shift out of range", ALUOp{Op: aluLsh}, ConstScalar(1), ConstScalar(32), UnknownScalar()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScalarALU(tt.op, tt.dst, tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScalarALU mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEndChangesValue(t *testing.T) {
	tests := []struct {
		name string
		op   ALUOp
		want bool
	}{
		{"le16", ALUOp{Op: aluEnd, Imm: 16}, true},
		{"le32", ALUOp{Op: aluEnd, Imm: 32}, true},
		{"le64", ALUOp{Op: aluEnd, Imm: 64}, false},
		{"be64", ALUOp{Op: aluEnd, Imm: 64, SrcX: true}, true},
		{"bswap64", ALUOp{Op: aluEnd, Imm: 64, Is64: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EndChangesValue(tt.op); got != tt.want {
				t.Errorf("EndChangesValue(%+v) = %v, want %v", tt.op, got, tt.want)
			}
		})
	}
}

func TestSignExtend(t *testing.T) {
	tests := []struct {
		name string
		in   Scalar
		size int
		is64 bool
		want Scalar
	}{
		{"const byte", ConstScalar(0x80), 1, true, ConstScalar(neg(0x80))},
		{"small positive range", urange(0, 100), 1, true, small(0, 0x7f, 0, 100)},
		{"range crossing sign", urange(0, 0xff), 1, true,
			sc(0, math.MaxUint64, -128, 127, 0, math.MaxUint64, -128, 127, 0, math.MaxUint32)},
		{"w const half", ConstScalar(0x8000), 2, false, ConstScalar(0xffff8000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, SignExtend(tt.in, tt.size, tt.is64)); diff != "" {
				t.Errorf("SignExtend mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSignExtendSubreg: the 32-bit bounds survive "(sN)" where the 64-bit
// ones cannot give the result and the signed 32-bit range fits in N bits;
// the expectations are the running 6.18.44-fc-v1045 kernel's log lines.
func TestSignExtendSubreg(t *testing.T) {
	s32 := func(lo, hi int32) Scalar {
		s := UnknownScalar()
		s.S32Min, s.S32Max = lo, hi
		s.Sync()
		return s
	}
	tests := []struct {
		name string
		in   Scalar
		size int
		want Scalar
	}{
		// R6=scalar(smin32=-5,smax32=5): R7=scalar(smin=smin32=-5,smax=smax32=5)
		{"signed low half", s32(-5, 5), 4,
			sc(0, math.MaxUint64, -5, 5, 0, math.MaxUint64, -5, 5, 0, math.MaxUint32)},
		// R6=scalar(smin=umin=umin32=0x7ffffff0,smax=umax=umax32=0x80000010):
		// R7=scalar(smin=S32_MIN,smax=S32_MAX,umin=umin32=0x7ffffff0,
		// umax=0xffffffff80000010,umax32=0x80000010)
		{"low half crossing the sign", urange(0x7ffffff0, 0x80000010), 4,
			sc(0, math.MaxUint64, math.MinInt32, math.MaxInt32, 0x7ffffff0, 0xffffffff80000010,
				math.MinInt32, math.MaxInt32, 0x7ffffff0, 0x80000010)},
		// One sign and one upper half: the 64-bit bounds decide, as
		// SignExtend does.
		{"upper half known", urange(0x100000000, 0x100000004), 4, small(0, 0x7, 0, 4)},
		{"unknown", UnknownScalar(), 4, SignExtend(UnknownScalar(), 4, true)},
		// R6=scalar(smin32=-3,smax32=2): r7 = (s16)r6 gives
		// R7=scalar(smin=smin32=-3,smax=smax32=2).
		{"half within s16", s32(-3, 2), 2,
			sc(0, math.MaxUint64, -3, 2, 0, math.MaxUint64, -3, 2, 0, math.MaxUint32)},
		// smin32=umin32=5,smax32=umax32=100, upper half unknown: (s16)
		// gives R7=scalar(smin=umin=smin32=umin32=5,smax=umax=
		// smax32=umax32=100,var_off=(0x0; 0x7f)).
		{"positive within s16", s32(5, 100), 2, small(0, 0x7f, 5, 100)},
		// smin32=-100,smax32=-5: (s8) gives R7=scalar(smin=smin32=-100,
		// smax=smax32=-5,umin=0xffffffffffffff9c,umax=0xfffffffffffffffb,
		// umin32=0xffffff9c,umax32=0xfffffffb,var_off=(0xffffffffffffff80; 0x7f)).
		{"negative within s8", s32(-100, -5), 1,
			sc(0xffffffffffffff80, 0x7f, -100, -5, neg(100), neg(5), -100, -5, 0xffffff9c, 0xfffffffb)},
		// smin32=-32768,smax32=0x8000 and smin32=0x10005,smax32=0x10064
		// do not fit in s16: R7=scalar(smin=smin32=-32768,smax=smax32=32767).
		{"beyond s16", s32(-32768, 32768), 2, SignExtend(UnknownScalar(), 2, true)},
		{"above s16", s32(0x10005, 0x10064), 2, SignExtend(UnknownScalar(), 2, true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, SignExtendSubreg(tt.in, tt.size)); diff != "" {
				t.Errorf("SignExtendSubreg mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   Scalar
		size int
		want Scalar
	}{
		{ConstScalar(0x1234), 1, ConstScalar(0x34)},
		{UnknownScalar(), 2, small(0, 0xffff, 0, 0xffff)},
		{urange(0x100, 0x1ff), 1, small(0, 0xff, 0, 0xff)},
		{urange(0x1_0000_0005, 0x1_0000_0007), 4, small(4, 3, 5, 7)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%v", tt.size, tt.in.Var), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Truncate(tt.in, tt.size)); diff != "" {
				t.Errorf("Truncate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConstructors(t *testing.T) {
	want := sc(0, math.MaxUint64, math.MinInt64, math.MaxInt64, 0, math.MaxUint64,
		math.MinInt32, math.MaxInt32, 0, math.MaxUint32)
	if diff := cmp.Diff(want, UnknownScalar()); diff != "" {
		t.Errorf("UnknownScalar mismatch (-want +got):\n%s", diff)
	}
	c := ConstScalar(neg(2))
	if diff := cmp.Diff(sc(neg(2), 0, -2, -2, neg(2), neg(2), -2, -2, math.MaxUint32-1, math.MaxUint32-1), c); diff != "" {
		t.Errorf("ConstScalar mismatch (-want +got):\n%s", diff)
	}
	if !c.IsConst() || !c.IsConst32() || c.Const() != neg(2) || !c.Valid() {
		t.Errorf("ConstScalar(-2) predicates wrong: %+v", c)
	}
	u := UnknownScalar()
	if !u.RangeWithin(c) || c.RangeWithin(u) {
		t.Errorf("RangeWithin: unknown must hold the constant and not the reverse")
	}
	bad := ConstScalar(3)
	bad.UMax = 4
	if bad.Valid() {
		t.Errorf("Valid accepted a constant tnum with a wider range")
	}
}

func FuzzScalarALU(f *testing.F) {
	f.Add(uint8(aluAdd), true, int16(0), uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, code uint8, is64 bool, off int16, seed1, seed2 uint64) {
		ops := allALUOps()
		op := ops[int(code)%len(ops)]
		op.Is64 = is64
		if op.Op == aluDiv || op.Op == aluMod {
			op.Off = off & 1
		}
		r := rand.New(rand.NewPCG(seed1, seed2))
		dst, x := randScalar(r)
		src, y := randScalar(r)
		checkALU(t, op, dst, src, randMember(r, dst, x), randMember(r, src, y))
	})
}

func BenchmarkScalarALU(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	dst, _ := randScalar(r)
	src, _ := randScalar(r)
	ops := allALUOps()
	b.ResetTimer()
	for i := range b.N {
		dst = ScalarALU(ops[i%len(ops)], dst, src)
	}
}

// TestSyncFixpoint: the shapes Sync returns early on are fixpoints of the
// full sequence, and nothing else is taken for one.
func TestSyncFixpoint(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	cases := []Scalar{UnknownScalar(), ConstScalar(0), ConstScalar(1 << 63), ConstScalar(^uint64(0)), urange(3, 9)}
	for range 1000 {
		cases = append(cases, ConstScalar(r.Uint64()), urange(r.Uint64()>>1, r.Uint64()>>1|1<<63))
	}
	for _, s := range cases {
		full := s
		full.sync()
		if s.syncFixpoint() && full != s {
			t.Fatalf("%v taken for a fixpoint, the full sequence gives %v", s, full)
		}
		fast := s
		fast.Sync()
		if fast != full {
			t.Fatalf("Sync(%v) = %v, the full sequence gives %v", s, fast, full)
		}
	}
}

// TestSyncMemo: Sync gives what the full sequence gives whether or not
// syncMemo holds its input, for inputs met again (hits) and for inputs
// sharing a slot with another (a collision must recompute, never return
// the other's result). An input is stored at its second miss in a row
// (syncSeen), and then hits.
func TestSyncMemo(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	var inputs []Scalar
	for range 2000 {
		s, _ := randScalar(r)
		s.UMin = max(s.UMin, r.Uint64()>>r.IntN(64)) // unsynced bounds
		inputs = append(inputs, s, urange(r.Uint64()>>8, r.Uint64()>>1|1<<63))
	}
	stored := 0
	for round := range 3 {
		for _, s := range inputs {
			want := s
			want.sync()
			// Round 0 syncs each input three times in a row: miss,
			// stored, hit. The later rounds meet inputs in turn.
			times := 1
			if round == 0 {
				times = 3
			}
			for range times {
				got := s
				got.Sync()
				if got != want {
					t.Fatalf("round %d: Sync(%v) = %v, the full sequence gives %v", round, s, got, want)
				}
			}
			if round == 0 && !s.syncFixpoint() {
				if m := syncMemo[s.memoHash()>>(64-syncMemoBits)].Load(); m == nil || !m.in.Equal(&s) {
					t.Fatalf("Sync(%v) three times in a row: not in the memo", s)
				}
				stored++
			}
		}
	}
	if stored == 0 {
		t.Fatal("no input went through the memo")
	}
}

func TestScalarEqual(t *testing.T) {
	base := smallRange(3, 9, 0xf)
	tests := []struct {
		name   string
		base   Scalar
		change func(s *Scalar)
		want   bool
	}{
		{"same", base, func(s *Scalar) {}, true},
		// Each difference counts whatever the other fields' bits.
		{"umin under an all-ones umax", UnknownScalar(), func(s *Scalar) { s.UMin = 5 }, false},
		{"u32min under an all-ones u32max", UnknownScalar(), func(s *Scalar) { s.U32Min = 5 }, false},
		{"tnum value", base, func(s *Scalar) { s.Var.Value ^= 1 << 40 }, false},
		{"tnum mask", base, func(s *Scalar) { s.Var.Mask ^= 1 }, false},
		{"umin", base, func(s *Scalar) { s.UMin++ }, false},
		{"umax", base, func(s *Scalar) { s.UMax ^= 1 << 63 }, false},
		{"smin", base, func(s *Scalar) { s.SMin-- }, false},
		{"smax", base, func(s *Scalar) { s.SMax++ }, false},
		{"u32min", base, func(s *Scalar) { s.U32Min++ }, false},
		{"u32max", base, func(s *Scalar) { s.U32Max ^= 1 << 31 }, false},
		{"s32min", base, func(s *Scalar) { s.S32Min-- }, false},
		{"s32max", base, func(s *Scalar) { s.S32Max++ }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.base
			tt.change(&s)
			if got := s.Equal(&tt.base); got != tt.want || got != (s == tt.base) {
				t.Errorf("Equal = %v, want %v (== says %v)", got, tt.want, s == tt.base)
			}
		})
	}
}

// TestSetConst checks that SetConst, ConstScalar written in place, leaves
// the same scalar as ConstScalar, whatever s held before.
func TestSetConst(t *testing.T) {
	for _, v := range []uint64{0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, math.MaxInt64, 1 << 63, math.MaxUint64, ^uint64(4)} {
		s := UnknownScalar()
		s.SetConst(v)
		if want := ConstScalar(v); s != want {
			t.Errorf("SetConst(%#x) = %+v, want %+v", v, s, want)
		}
	}
}

// TestSaneIsViolationFree: Sane answers as Violation does, on consistent
// scalars and on scalars with each field disturbed (a min past its max, a
// constant tnum or subregister out of sync with its bounds, a bound reset
// by Unbounded under a constant tnum), so that the fast path never skips
// a report the kernel prints.
func TestSaneIsViolationFree(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 23))
	sane, insane := 0, 0
	for range 50000 {
		s, _ := randScalar(r)
		switch r.IntN(8) {
		case 0:
			s.UMin, s.UMax = s.UMax+1, s.UMin
		case 1:
			s.S32Min = s.S32Max + 1
		case 2:
			s = ConstScalar(r.Uint64())
			s.SMax++
		case 3:
			s.Var = Tnum{Value: uint64(r.Uint32()), Mask: r.Uint64() &^ 0xffffffff}
		case 4:
			s = s.Unbounded()
		case 5:
			s.U32Max = s.U32Min
		}
		if got, want := s.Sane(), s.Violation() == ""; got != want {
			t.Fatalf("%+v: Sane() = %v, Violation() = %q", s, got, s.Violation())
		}
		if s.Sane() {
			sane++
		} else {
			insane++
		}
	}
	if sane == 0 || insane == 0 {
		t.Fatalf("the test never met both answers: %d sane, %d insane", sane, insane)
	}
}
