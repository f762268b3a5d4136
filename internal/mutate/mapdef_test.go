package mutate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// TestMapDefVariants: arrays get other entry counts, plain maps the
// read-only or write-only flag toggled (never both set), hash maps
// preallocation toggled; global data and other map types keep theirs.
func TestMapDefVariants(t *testing.T) {
	tests := []struct {
		name string
		mi   MapInfo
		want []MapDef
	}{
		{"array of 4", MapInfo{Type: mapArray, MaxEntries: 4}, []MapDef{
			{MaxEntries: 1}, {MaxEntries: 2}, {MaxEntries: 3}, {MaxEntries: 5},
			{MaxEntries: 4, Flags: mapFRdonlyProg}, {MaxEntries: 4, Flags: mapFWronlyProg}}},
		{"array of 1", MapInfo{Type: mapPercpuArray, MaxEntries: 1}, []MapDef{
			{MaxEntries: 2}, {MaxEntries: 1, Flags: mapFRdonlyProg}, {MaxEntries: 1, Flags: mapFWronlyProg}}},
		{"read-only hash", MapInfo{Type: mapHash, MaxEntries: 8, Flags: mapFRdonlyProg}, []MapDef{
			{MaxEntries: 8}, {MaxEntries: 8, Flags: mapFRdonlyProg | mapFNoPrealloc}}},
		{"write-only lru", MapInfo{Type: mapLRUHash, MaxEntries: 8, Flags: mapFWronlyProg}, []MapDef{
			{MaxEntries: 8}}},
		{"global data", MapInfo{Type: mapArray, MaxEntries: 1, Data: true}, nil},
		{"ring buffer", MapInfo{Type: 27, MaxEntries: 4096}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, mapDefVariants(tt.mi)); diff != "" {
			t.Errorf("%s: variants (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMutateMapDef: a mutant of a program that loads a map gets another
// definition of that map in about MapDefShare of the draws, recorded as
// an operator and kept through later edits; a map the program does not
// load, or one with no other definition, is never changed.
func TestMutateMapDef(t *testing.T) {
	mapLoad := ldImm64(1, 1, 0)
	mapLoad[0].Src = insn.PseudoMapFD
	code := prog(mapLoad, mov(0, 0), exit())
	maps := []MapInfo{{Type: mapArray, MaxEntries: 4}, {Type: mapHash, MaxEntries: 16}}
	changed := 0
	const draws = 1000
	for s := range uint64(draws) {
		m := Mutate(code, rand.New(rand.NewPCG(s, 5)), 2, Env{Maps: maps})
		if len(m.MapDefs) == 0 {
			continue
		}
		changed++
		d := m.MapDefs[0]
		if d.Index != 1 || d.MaxEntries != 16 || (d.Flags != mapFRdonlyProg && d.Flags != mapFWronlyProg && d.Flags != mapFNoPrealloc) {
			t.Fatalf("stream %d: map definition %+v, want map 1 with one flag toggled", s, d)
		}
		if !slices.Contains(m.Operators, MapDefOperator) {
			t.Fatalf("stream %d: operators %q, want %q among them", s, m.Operators, MapDefOperator)
		}
	}
	if changed < draws*MapDefShare/2 || changed > draws*MapDefShare*2 {
		t.Errorf("%d of %d mutants changed a map, want about %d", changed, draws, int(draws*MapDefShare))
	}
	data := []MapInfo{{Type: mapArray, MaxEntries: 4}, {Type: mapArray, MaxEntries: 1, Data: true}}
	for s := range uint64(200) {
		if m := Mutate(code, rand.New(rand.NewPCG(s, 5)), 2, Env{Maps: data}); len(m.MapDefs) > 0 {
			t.Fatalf("stream %d: changed %+v, a map the program does not load or global data", s, m.MapDefs)
		}
	}
	m, ok := Identity(code).withMapDef(rand.New(rand.NewPCG(1, 1)), maps)
	if !ok {
		t.Fatal("withMapDef found no map to change")
	}
	next, err := m.apply(insertion(2, mov(2, 0)), "insert")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.MapDefs, next.MapDefs); diff != "" {
		t.Errorf("an edit after the map definition lost it (-want +got):\n%s", diff)
	}
}

// TestMutateLoadFlags: about LoadFlagsShare of the mutants toggle one
// load flag of toggledLoadFlags, recorded as an operator; a run confined
// to other operators toggles none.
func TestMutateLoadFlags(t *testing.T) {
	code := prog(mov(0, 0), exit())
	toggled := 0
	const draws = 1000
	for s := range uint64(draws) {
		m := Mutate(code, rand.New(rand.NewPCG(s, 3)), 2, Env{})
		if m.ToggleFlags == 0 {
			continue
		}
		toggled++
		if !slices.ContainsFunc(toggledLoadFlags, func(f loadFlag) bool { return f.flag == m.ToggleFlags }) || !slices.Contains(m.Operators, LoadFlagsOperator) {
			t.Fatalf("stream %d: toggled %#x by %q", s, m.ToggleFlags, m.Operators)
		}
	}
	if toggled < draws*LoadFlagsShare/2 || toggled > draws*LoadFlagsShare*2 {
		t.Errorf("%d of %d mutants toggled a load flag, want about %d", toggled, draws, int(draws*LoadFlagsShare))
	}
	for s := range uint64(200) {
		if m := Mutate(code, rand.New(rand.NewPCG(s, 3)), 2, Env{Operators: []string{"swap"}}); m.ToggleFlags != 0 {
			t.Fatalf("stream %d: a run confined to swap toggled %#x", s, m.ToggleFlags)
		}
	}
}
