package states

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTnumOps(t *testing.T) {
	low4 := Tnum{Mask: 0xf}
	tests := []struct {
		name string
		got  Tnum
		want Tnum
	}{
		{"range", TnumRange(0, 255), Tnum{Mask: 0xff}},
		{"range const", TnumRange(5, 5), TnumConst(5)},
		{"range high bits", TnumRange(0x1000, 0x1003), Tnum{Value: 0x1000, Mask: 3}},
		{"range full", TnumRange(0, math.MaxUint64), TnumUnknown()},
		{"add carries", Tnum{Mask: 3}.Add(TnumConst(1)), Tnum{Mask: 7}},
		{"sub unknown", TnumConst(0).Sub(Tnum{Mask: 1}), TnumUnknown()},
		{"neg const", TnumConst(1).Neg(), TnumConst(math.MaxUint64)},
		{"mul consts", TnumConst(3).Mul(TnumConst(5)), TnumConst(15)},
		{"mul union", Tnum{Value: 1, Mask: 2}.Mul(TnumConst(3)), Tnum{Value: 1, Mask: 0xa}},
		{"and", low4.And(TnumConst(6)), Tnum{Mask: 6}},
		{"or", low4.Or(TnumConst(0x10)), Tnum{Value: 0x10, Mask: 0xf}},
		{"xor", Tnum{Value: 1, Mask: 2}.Xor(TnumConst(3)), Tnum{Value: 0, Mask: 2}},
		{"lsh", low4.Lsh(4), Tnum{Mask: 0xf0}},
		{"rsh", Tnum{Value: 0x100, Mask: 0xf0}.Rsh(4), Tnum{Value: 0x10, Mask: 0xf}},
		{"arsh 32", TnumConst(0x80000000).Arsh(1, 32), TnumConst(0xc0000000)},
		{"arsh 64", TnumConst(1<<63).Arsh(4, 64), TnumConst(0xf800000000000000)},
		{"arsh unknown sign", Tnum{Mask: 1 << 63}.Arsh(1, 64), Tnum{Mask: 3 << 62}},
		{"intersect", low4.Intersect(Tnum{Value: 1, Mask: 0xf0}), TnumConst(1)},
		{"cast", TnumUnknown().Cast(2), Tnum{Mask: 0xffff}},
		{"subreg", Tnum{Value: 0x1_0000_0001, Mask: 0xf0_0000_00f0}.Subreg(), Tnum{Value: 1, Mask: 0xf0}},
		{"clear subreg", Tnum{Value: 0x1_0000_0001, Mask: 0xf0_0000_00f0}.ClearSubreg(), Tnum{Value: 0x1_0000_0000, Mask: 0xf0_0000_0000}},
		{"with subreg", TnumConst(0x5_0000_0000).WithSubreg(Tnum{Value: 0x9_0000_0001, Mask: 2}), Tnum{Value: 0x5_0000_0001, Mask: 2}},
		{"const subreg", TnumUnknown().ConstSubreg(7), Tnum{Value: 7, Mask: 0xffffffff_00000000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTnumPredicates(t *testing.T) {
	tests := []struct {
		name      string
		got, want bool
	}{
		{"in unknown", TnumUnknown().In(TnumConst(9)), true},
		{"in const", TnumConst(9).In(TnumUnknown()), false},
		{"in disagree", Tnum{Value: 1, Mask: 2}.In(TnumConst(2)), false},
		{"in member", Tnum{Value: 1, Mask: 2}.In(TnumConst(3)), true},
		{"aligned", Tnum{Value: 8, Mask: 0xf0}.IsAligned(8), true},
		{"unaligned", Tnum{Value: 8, Mask: 0xf4}.IsAligned(8), false},
		{"aligned zero", TnumUnknown().IsAligned(0), true},
		{"const", TnumConst(4).IsConst(), true},
		{"unknown", TnumUnknown().IsUnknown(), true},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	strs := []struct {
		in   Tnum
		want string
	}{
		{Tnum{Mask: 0xff}, "(0x0; 0xff)"},
		{TnumConst(0), "0"},
		{TnumConst(65535), "65535"},
		{TnumConst(65536), "0x10000"},
		{TnumConst(^uint64(5)), "0xfffffffffffffffa"},
	}
	for _, tt := range strs {
		if diff := cmp.Diff(tt.want, tt.in.String()); diff != "" {
			t.Errorf("%#v.String() mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestTnumSound checks each binary tnum operation on members of random
// tnums against the concrete operation.
func TestTnumSound(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	member := func(a Tnum) uint64 { return a.Value | r.Uint64()&a.Mask }
	ops := map[string]struct {
		abs func(a, b Tnum) Tnum
		con func(x, y uint64) uint64
	}{
		"add": {Tnum.Add, func(x, y uint64) uint64 { return x + y }},
		"sub": {Tnum.Sub, func(x, y uint64) uint64 { return x - y }},
		"mul": {Tnum.Mul, func(x, y uint64) uint64 { return x * y }},
		"and": {Tnum.And, func(x, y uint64) uint64 { return x & y }},
		"or":  {Tnum.Or, func(x, y uint64) uint64 { return x | y }},
		"xor": {Tnum.Xor, func(x, y uint64) uint64 { return x ^ y }},
	}
	for name, op := range ops {
		for range 5000 {
			a := Tnum{Mask: randMask(r)}
			a.Value = randValue(r) &^ a.Mask
			b := Tnum{Mask: randMask(r)}
			b.Value = randValue(r) &^ b.Mask
			x, y := member(a), member(b)
			if got := op.abs(a, b); !got.Contains(op.con(x, y)) {
				t.Fatalf("%s(%v, %v) = %v misses %#x", name, a, b, got, op.con(x, y))
			}
			if !TnumRange(min(x, y), max(x, y)).Contains(x) {
				t.Fatalf("TnumRange(%#x, %#x) misses an end", min(x, y), max(x, y))
			}
		}
	}
}
