package mutate

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// TestMapBTFVariants: a map with BTF may become another keyed map type
// (an array only with 4-byte keys), have its key wrapped or replaced (an
// enum only of an enum's size), and each value member wrapped; a map
// without BTF, global data and other map types get nothing of it.
func TestMapBTFVariants(t *testing.T) {
	count := func(vs []MapBTF) (types, keys, wraps int) {
		for _, v := range vs {
			switch {
			case v.Type != 0:
				types++
			case v.Key != KeyKept:
				keys++
			case v.Wrap != WrapNone:
				wraps++
			}
		}
		return
	}
	type got struct{ Types, Keys, Wraps int }
	tests := []struct {
		name string
		mi   MapInfo
		want got
	}{
		{"array, 2 members", MapInfo{Type: mapArray, BTF: true, KeySize: 4, ValueMembers: 2}, got{5, 5, 6}},
		{"hash, 12-byte key", MapInfo{Type: mapHash, BTF: true, KeySize: 12, ValueMembers: 1}, got{3, 4, 3}},
		{"no BTF", MapInfo{Type: mapHash, KeySize: 4}, got{}},
		{"global data", MapInfo{Type: mapArray, BTF: true, KeySize: 4, Data: true}, got{}},
		{"socket storage", MapInfo{Type: 24, BTF: true, KeySize: 4, ValueMembers: 1}, got{0, 5, 3}},
	}
	for _, tt := range tests {
		ty, k, w := count(mapBTFVariants(tt.mi))
		if diff := cmp.Diff(tt.want, got{ty, k, w}); diff != "" {
			t.Errorf("%s: variants (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMutateMapBTF: a run that names the operator alone gives every
// mutant of a program that loads a map with BTF one edit of that map,
// described among its changes and kept through later edits.
func TestMutateMapBTF(t *testing.T) {
	mapLoad := ldImm64(1, 1, 0)
	mapLoad[0].Src = insn.PseudoMapFD
	code := prog(mapLoad, mov(0, 0), exit())
	maps := []MapInfo{{Type: mapArray, BTF: true, KeySize: 4}, {Type: mapHash, BTF: true, KeySize: 8, ValueMembers: 3}}
	for s := range uint64(200) {
		m := Mutate(code, rand.New(rand.NewPCG(s, 7)), 2, Env{Maps: maps, Operators: []string{MapBTFOperator}})
		if len(m.MapBTFs) != 1 || m.MapBTFs[0].Index != 1 || len(m.Changes) != 1 || m.Operators[0] != MapBTFOperator {
			t.Fatalf("stream %d: %+v, changes %q: want one edit of map 1", s, m.MapBTFs, m.Changes)
		}
		if d := m.MapBTFs[0]; d.Type == mapArray || d.Type == mapPercpuArray {
			t.Fatalf("stream %d: an 8-byte key made an array: %+v", s, d)
		}
	}
	m := Mutate(code, rand.New(rand.NewPCG(1, 1)), 1, Env{Maps: []MapInfo{{Type: mapHash, KeySize: 4}, {Type: mapHash, KeySize: 4}}, Operators: []string{MapBTFOperator}})
	if len(m.MapBTFs) != 0 {
		t.Errorf("a map without BTF got %+v", m.MapBTFs)
	}
}
