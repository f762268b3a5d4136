package mutate

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// MapDefOperator names the mutation that creates one of the maps the
// program uses with another definition: every other operator changes the
// code and keeps the object's maps as they were, so the rules that read a
// map's definition (read-only and write-only maps, the entries of an array
// a constant key may reach, preallocation) only ever met the definitions
// the seeds' authors wrote.
const MapDefOperator = "map definition"

// MapDefShare is the probability that a mutant of a program that loads a
// map with another possible definition gets one.
const MapDefShare = 0.1

// Map definition flags (include/uapi/linux/bpf.h) and types the operator
// changes.
const (
	mapFNoPrealloc = 1 << 0
	mapFRdonlyProg = 1 << 7
	mapFWronlyProg = 1 << 8

	mapHash          = 1
	mapArray         = 2
	mapPercpuHash    = 5
	mapPercpuArray   = 6
	mapLRUHash       = 9
	mapLRUPercpuHash = 10
)

// MapInfo is what the map-definition operator knows of one map of the
// seed's object.
type MapInfo struct {
	// Type is the map type (BPF_MAP_TYPE_*); 0 where the index names no
	// map.
	Type              uint32
	MaxEntries, Flags uint32
	// Data marks a global data map (.data, .rodata, .bss, .kconfig):
	// loaders fix its definition, and freeze .rodata by its name.
	Data bool
	// BTF marks a map whose value has BTF (MapBTFOperator); KeySize is
	// its key's size, ValueMembers the members of its value when that
	// is a struct.
	BTF          bool
	KeySize      uint32
	ValueMembers int
	// Rodata holds the initial bytes of a read-only global data map
	// (.rodata: frozen by loaders, known to the verifier) for
	// RodataOperator; nil for any other map.
	Rodata []byte
}

// MapDef is a map of the seed's object created with other entries and
// flags.
type MapDef struct {
	// Index is the map's index (the imm of its ld_imm64).
	Index             int
	MaxEntries, Flags uint32
}

// mapDefVariants lists the definitions the operator gives map mi: an
// array's entries at 1, 2 and one either side of its own (the constant
// keys a lookup may now miss), BPF_F_RDONLY_PROG or BPF_F_WRONLY_PROG
// toggled on a plain array or hash map, BPF_F_NO_PREALLOC toggled on a
// hash map.
func mapDefVariants(mi MapInfo) []MapDef {
	if mi.Data {
		return nil
	}
	var out []MapDef
	switch mi.Type {
	case mapArray, mapPercpuArray:
		for _, n := range []uint32{1, 2, mi.MaxEntries - 1, mi.MaxEntries + 1} {
			if n >= 1 && n != mi.MaxEntries && !slices.ContainsFunc(out, func(d MapDef) bool { return d.MaxEntries == n }) {
				out = append(out, MapDef{MaxEntries: n, Flags: mi.Flags})
			}
		}
	}
	switch mi.Type {
	case mapHash, mapArray, mapPercpuHash, mapPercpuArray, mapLRUHash, mapLRUPercpuHash:
		if mi.Flags&mapFWronlyProg == 0 {
			out = append(out, MapDef{MaxEntries: mi.MaxEntries, Flags: mi.Flags ^ mapFRdonlyProg})
		}
		if mi.Flags&mapFRdonlyProg == 0 {
			out = append(out, MapDef{MaxEntries: mi.MaxEntries, Flags: mi.Flags ^ mapFWronlyProg})
		}
	}
	if mi.Type == mapHash || mi.Type == mapPercpuHash {
		out = append(out, MapDef{MaxEntries: mi.MaxEntries, Flags: mi.Flags ^ mapFNoPrealloc})
	}
	return out
}

// withMapDef gives one of the maps m loads, drawn from r, another
// definition drawn from mapDefVariants; ok is false when no map m loads
// has one.
func (m Mutant) withMapDef(r *rand.Rand, maps []MapInfo) (Mutant, bool) {
	var used []int
	for _, in := range m.Insns {
		if in.Filler || !in.IsLdImm64() || (in.Src != insn.PseudoMapFD && in.Src != insn.PseudoMapValue) {
			continue
		}
		k := int(in.Imm)
		if k >= 0 && k < len(maps) && !slices.Contains(used, k) && len(mapDefVariants(m.mapInfo(maps, k))) > 0 {
			used = append(used, k)
		}
	}
	if len(used) == 0 {
		return m, false
	}
	k := used[r.IntN(len(used))]
	cur := m.mapInfo(maps, k)
	vs := mapDefVariants(cur)
	d := vs[r.IntN(len(vs))]
	d.Index = k
	m.MapDefs = append(slices.DeleteFunc(slices.Clone(m.MapDefs), func(o MapDef) bool { return o.Index == k }), d)
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)],
		fmt.Sprintf("%s: map #%d (type %d) max_entries %d -> %d, flags %#x -> %#x", MapDefOperator, k, cur.Type, cur.MaxEntries, d.MaxEntries, cur.Flags, d.Flags))
	return m.by(MapDefOperator), true
}

// mapInfo returns map k of maps as m defines it.
func (m Mutant) mapInfo(maps []MapInfo, k int) MapInfo {
	mi := maps[k]
	for _, d := range m.MapDefs {
		if d.Index == k {
			mi.MaxEntries, mi.Flags = d.MaxEntries, d.Flags
		}
	}
	return mi
}
