package states

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var allJmpOps = []uint8{jmpJEQ, jmpJNE, jmpJSET, jmpJNotSet, jmpJGT, jmpJGE, jmpJLT, jmpJLE,
	jmpJSGT, jmpJSGE, jmpJSLT, jmpJSLE}

// checkBranch checks BranchTaken and both edges' Refine on one concrete
// pair of members.
func checkBranch(t *testing.T, op uint8, a, b Scalar, x, y uint64, is32 bool) {
	t.Helper()
	holds := evalCond(op, x, y, is32)
	switch BranchTaken(op, &a, &b, is32) {
	case BranchAlways:
		if !holds {
			t.Fatalf("BranchTaken(%#x, %+v, %+v, %v) = always, but %#x, %#x fail", op, a, b, is32, x, y)
		}
	case BranchNever:
		if holds {
			t.Fatalf("BranchTaken(%#x, %+v, %+v, %v) = never, but %#x, %#x hold", op, a, b, is32, x, y)
		}
	}
	edge := op
	if !holds {
		edge = NegateJmp(op)
	}
	ra, rb, ok := Refine(edge, a, b, is32)
	if !ok || !ra.Contains(x) || !rb.Contains(y) {
		t.Fatalf("Refine(%#x, %+v, %+v, %v) = %+v, %+v, %v removed feasible %#x, %#x",
			edge, a, b, is32, ra, rb, ok, x, y)
	}
}

func TestBranchSound(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, op := range allJmpOps {
		for _, is32 := range []bool{false, true} {
			for range 4000 {
				a, x := randScalar(r)
				b, y := randScalar(r)
				x, y = randMember(r, a, x), randMember(r, b, y)
				if r.IntN(4) == 0 {
					b, y = ConstScalar(x), x
				}
				checkBranch(t, op, a, b, x, y, is32)
			}
		}
	}
}

func TestOpcodeTables(t *testing.T) {
	for _, op := range allJmpOps {
		if got := NegateJmp(NegateJmp(op)); got != op {
			t.Errorf("NegateJmp twice of %#x = %#x", op, got)
		}
		if op != jmpJNotSet {
			if got := FlipJmp(FlipJmp(op)); got != op {
				t.Errorf("FlipJmp twice of %#x = %#x", op, got)
			}
		}
	}
	if diff := cmp.Diff([]uint8{jmpJLE, jmpJSLT, jmpJEQ, 0}, []uint8{FlipJmp(jmpJGE), FlipJmp(jmpJSGT), FlipJmp(jmpJEQ), FlipJmp(0x80)}); diff != "" {
		t.Errorf("FlipJmp mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint8{jmpJLT, jmpJNotSet, 0}, []uint8{NegateJmp(jmpJGE), NegateJmp(jmpJSET), NegateJmp(0x80)}); diff != "" {
		t.Errorf("NegateJmp mismatch (-want +got):\n%s", diff)
	}
}

func TestBranchTaken(t *testing.T) {
	tests := []struct {
		name string
		op   uint8
		a, b Scalar
		is32 bool
		want int
	}{
		{"consts equal", jmpJEQ, ConstScalar(3), ConstScalar(3), false, BranchAlways},
		{"tnums disjoint", jmpJEQ, urange(0, 1<<20), ConstScalar(1 << 21), false, BranchNever},
		{"low bits differ", jmpJNE, ScalarALU(ALUOp{Op: aluOr, Is64: true}, UnknownScalar(), ConstScalar(1)), ConstScalar(2), false, BranchAlways},
		{"gt by range", jmpJGT, urange(10, 20), ConstScalar(9), false, BranchAlways},
		{"gt undecided", jmpJGT, urange(10, 20), ConstScalar(15), false, BranchUnknown},
		{"sle by range", jmpJSLE, ConstScalar(neg(1)), ConstScalar(0), false, BranchAlways},
		{"jmp32 sees low half", jmpJEQ, ConstScalar(0x1_0000_0005), ConstScalar(5), true, BranchAlways},
		{"jset known bit", jmpJSET, ScalarALU(ALUOp{Op: aluOr, Is64: true}, UnknownScalar(), ConstScalar(4)), ConstScalar(6), false, BranchAlways},
		{"jset clear bits", jmpJSET, urange(0, 3), ConstScalar(8), false, BranchNever},
		{"jset variable", jmpJSET, urange(0, 3), urange(0, 3), false, BranchUnknown},
		{"32-bit ranges disjoint", jmpJEQ, ConstScalar(0x2_0000_0001), urange(0x1_0000_0002, 0x3_0000_0000), false, BranchUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BranchTaken(tt.op, &tt.a, &tt.b, tt.is32); got != tt.want {
				t.Errorf("BranchTaken = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestRefine(t *testing.T) {
	bit2 := UnknownScalar()
	bit2.Var = Tnum{Value: 4, Mask: ^uint64(4)}
	bit2.UMin, bit2.U32Min = 4, 4
	bit2.SMin, bit2.S32Min = math.MinInt64+4, math.MinInt32+4
	tests := []struct {
		name         string
		op           uint8
		a, b         Scalar
		is32         bool
		wantA, wantB Scalar
		wantOK       bool
	}{
		{"gt const", jmpJGT, UnknownScalar(), ConstScalar(10), false,
			func() Scalar { s := UnknownScalar(); s.UMin = 11; return s }(), ConstScalar(10), true},
		{"lt const", jmpJLT, UnknownScalar(), ConstScalar(10), false, small(0, 0xf, 0, 9), ConstScalar(10), true},
		{"eq const", jmpJEQ, UnknownScalar(), ConstScalar(7), false, ConstScalar(7), ConstScalar(7), true},
		{"ne at the edge", jmpJNE, urange(0, 10), ConstScalar(10), false, small(0, 0xf, 0, 9), ConstScalar(10), true},
		{"jset single bit", jmpJSET, UnknownScalar(), ConstScalar(4), false, bit2, ConstScalar(4), true},
		{"jset false clears", jmpJNotSet, urange(0, 7), ConstScalar(4), false, small(0, 3, 0, 3), ConstScalar(4), true},
		{"jmp32 lt", jmpJLT, UnknownScalar(), ConstScalar(16), true,
			func() Scalar {
				s := UnknownScalar()
				s.Var = Tnum{Mask: math.MaxUint64 &^ 0xfffffff0}
				s.S32Min, s.S32Max, s.U32Max = 0, 15, 15
				s.SMax, s.UMax = 0x7fffffff_0000000f, 0xffffffff_0000000f
				return s
			}(), ConstScalar(16), true},
	}
	// Linux 6.18.44 logs "R0=240" for "r0 &= 0xf0; if r0 > 0xe0": the
	// only member of the tnum above 0xe0 is 0xf0.
	tests = append(tests, struct {
		name         string
		op           uint8
		a, b         Scalar
		is32         bool
		wantA, wantB Scalar
		wantOK       bool
	}{"kernel single member", jmpJGT, small(0, 0xf0, 0, 0xf0), ConstScalar(0xe0), false, ConstScalar(0xf0), ConstScalar(0xe0), true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, ok := Refine(tt.op, tt.a, tt.b, tt.is32)
			if diff := cmp.Diff([]Scalar{tt.wantA, tt.wantB}, []Scalar{a, b}); diff != "" {
				t.Errorf("Refine mismatch (-want +got):\n%s", diff)
			}
			if ok != tt.wantOK {
				t.Errorf("Refine ok = %v, want %v", ok, tt.wantOK)
			}
		})
	}
}

// TestRefineSame checks the edges of a register compared with itself
// against the kernel's logs (Linux 6.18.44): r4 = prandom & mask, then
// "if r4 OP r4 goto".
func TestRefineSame(t *testing.T) {
	tests := []struct {
		name   string
		op     uint8
		a      Scalar
		is32   bool
		want   Scalar
		wantOK bool
	}{
		// "R4=scalar(smin=umin=smin32=umin32=1,smax=umax=smax32=umax32=0xfffe,var_off=(0x0; 0xffff))"
		{"sgt taken", jmpJSGT, smallRange(0, 0xffff, 0xffff), false, smallRange(1, 0xfffe, 0xffff), true},
		{"lt taken", jmpJLT, smallRange(0, 0xffff, 0xffff), false, smallRange(1, 0xfffe, 0xffff), true},
		{"jmp32 lt taken", jmpJLT, smallRange(0, 0xffff, 0xffff), true, smallRange(1, 0xfffe, 0xffff), true},
		{"sle fallthrough", jmpJSLE, smallRange(0, 0xffff, 0xffff), false, smallRange(0, 0xffff, 0xffff), true},
		{"eq", jmpJEQ, smallRange(0, 0xffff, 0xffff), false, smallRange(0, 0xffff, 0xffff), true},
		// "R4=1": the tnum keeps only 1 of [1, 0].
		{"gt taken on a bit", jmpJGT, smallRange(0, 1, 1), false, ConstScalar(1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RefineSame(tt.op, tt.a, tt.is32)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RefineSame mismatch (-want +got):\n%s", diff)
			}
			if ok != tt.wantOK {
				t.Errorf("RefineSame ok = %v, want %v", ok, tt.wantOK)
			}
		})
	}
}

func TestRefineInfeasible(t *testing.T) {
	// A minimum above its maximum fails the sanity check.
	bad := ConstScalar(5)
	bad.UMin = 6
	if bad.Valid() {
		t.Errorf("Valid accepted umin > umax")
	}
	// The 6.18.y single-member rule of Sync turns a dead edge's empty
	// range into the tnum's nearest member, as the kernel does, so Refine
	// reports it as consistent.
	a, b := UnknownScalar(), UnknownScalar()
	a.UMax, b.UMin = 1<<40, 1<<41
	a.Sync()
	b.Sync()
	ra, rb, ok := Refine(jmpJEQ, a, b, false)
	if want := ConstScalar(1<<41 - 1); !ok || ra != want || rb != want {
		t.Errorf("Refine(JEQ, [0, 2^40], [2^41, max]) = %+v, %+v, %v, want both %+v", ra, rb, ok, want)
	}
	if _, _, ok := Refine(jmpJSLT, ConstScalar(10), ConstScalar(20), false); !ok {
		t.Errorf("Refine(JSLT, 10, 20) ok = false, want true")
	}
}

func FuzzBranch(f *testing.F) {
	f.Add(uint8(0), false, uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, code uint8, is32 bool, seed1, seed2 uint64) {
		op := allJmpOps[int(code)%len(allJmpOps)]
		r := rand.New(rand.NewPCG(seed1, seed2))
		a, x := randScalar(r)
		b, y := randScalar(r)
		checkBranch(t, op, a, b, randMember(r, a, x), randMember(r, b, y), is32)
	})
}

func BenchmarkRefine(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	x, _ := randScalar(r)
	y, _ := randScalar(r)
	b.ResetTimer()
	for i := range b.N {
		Refine(allJmpOps[i%len(allJmpOps)], x, y, i&1 == 0)
	}
}
