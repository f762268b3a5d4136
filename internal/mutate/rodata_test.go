package mutate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// TestMutateRodata: a mutant of a program that points into a read-only
// data map gets other bytes in it when the operator is asked for, within
// the map and aligned to their size; the seed's bytes are never written,
// and a map without read-only contents is never changed.
func TestMutateRodata(t *testing.T) {
	load := ldImm64(1, 1, 0)
	load[0].Src, load[0].Imm2 = insn.PseudoMapValue, 20
	other := ldImm64(2, 0, 0)
	other[0].Src = insn.PseudoMapFD
	code := prog(load, other, mov(0, 0), exit())
	rodata := []byte("%d and %s, then a knob\x00\x01\x00\x00\x00")
	seedBytes := slices.Clone(rodata)
	maps := []MapInfo{{Type: mapHash, MaxEntries: 4}, {Type: mapArray, MaxEntries: 1, Data: true, Rodata: rodata}}
	changed := 0
	for s := range uint64(500) {
		m := Mutate(code, rand.New(rand.NewPCG(s, 9)), 1, Env{Maps: maps, Operators: []string{RodataOperator}})
		if len(m.DataEdits) == 0 {
			continue
		}
		changed++
		d := m.DataEdits[0]
		if d.Index != 1 || d.Offset < 0 || d.Offset+len(d.Bytes) > len(rodata) || d.Offset%len(d.Bytes) != 0 {
			t.Fatalf("stream %d: edit %+v outside map 1's %d bytes or unaligned", s, d, len(rodata))
		}
		got := ApplyDataEdits(rodata, 1, m.DataEdits)
		if !slices.Equal(got[d.Offset:d.Offset+len(d.Bytes)], d.Bytes) || len(got) != len(rodata) {
			t.Fatalf("stream %d: %q after %+v", s, got, d)
		}
		if !slices.Contains(m.Operators, RodataOperator) {
			t.Fatalf("stream %d: operators %v lack %q", s, m.Operators, RodataOperator)
		}
	}
	if diff := cmp.Diff(seedBytes, rodata); diff != "" {
		t.Errorf("the seed's bytes changed (-before +after):\n%s", diff)
	}
	if changed < 450 {
		t.Errorf("%d of 500 mutants changed the read-only data, want nearly all", changed)
	}
}

// TestApplyDataEdits: edits of the named map apply in order, others and
// those outside the map are passed over, and the input is not written.
func TestApplyDataEdits(t *testing.T) {
	data := []byte{1, 2, 3, 4}
	edits := []DataEdit{{Index: 0, Offset: 1, Bytes: []byte{9, 9}}, {Index: 1, Offset: 0, Bytes: []byte{7}}, {Index: 0, Offset: 2, Bytes: []byte{5}}, {Index: 0, Offset: 4, Bytes: []byte{6}}}
	if diff := cmp.Diff([]byte{1, 9, 5, 4}, ApplyDataEdits(data, 0, edits)); diff != "" {
		t.Errorf("map 0 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]byte{1, 2, 3, 4}, data); diff != "" {
		t.Errorf("input written (-want +got):\n%s", diff)
	}
}
