package mutate

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// MapBTFOperator names the mutation that creates one of the maps the
// program uses with other BTF: another map type of the same key and value
// sizes, its key type behind a typedef, const or volatile, or replaced by
// an enum or a struct of the same size, or one member of its value struct
// behind a typedef, const or volatile. Every other operator keeps the
// types the seeds' authors wrote, so the kernel's rules on them (which
// key each map type takes, which special fields a map type may hold, a
// special field found only by its very type, map_check_btf's retry
// without BTF) were never met by a fuzzer.
const MapBTFOperator = "map BTF"

// MapBTFShare is the probability that a mutant of a program that loads a
// map with BTF gets other BTF for it.
const MapBTFShare = 0.08

// KeyEdit is what MapBTFOperator does to a map's key type.
type KeyEdit uint8

// The key edits.
const (
	KeyKept KeyEdit = iota
	KeyTypedef
	KeyConst
	KeyVolatile
	// KeyEnum replaces the key by an enum of its size.
	KeyEnum
	// KeyStruct replaces the key by a struct of one member, the key.
	KeyStruct
)

// Wrap is a type a member's type is put behind.
type Wrap uint8

// The wraps.
const (
	WrapNone Wrap = iota
	WrapTypedef
	WrapConst
	WrapVolatile
)

// MapBTF is a map of the seed's object created with other BTF
// (MapBTFOperator).
type MapBTF struct {
	// Index is the map's index (the imm of its ld_imm64).
	Index int
	// Type is the map type it is created as; 0 keeps its own.
	Type uint32
	Key  KeyEdit
	// Member is the index of the value member Wrap applies to.
	Member int
	Wrap   Wrap
}

// String describes the edit for a finding's change list.
func (d MapBTF) String() string {
	s := fmt.Sprintf("map #%d", d.Index)
	if d.Type != 0 {
		s += fmt.Sprintf(" as type %d", d.Type)
	}
	if d.Key != KeyKept {
		s += " key " + [...]string{"", "typedef", "const", "volatile", "enum", "struct"}[d.Key]
	}
	if d.Wrap != WrapNone {
		s += fmt.Sprintf(" value member %d behind a %s", d.Member, [...]string{"", "typedef", "const", "volatile"}[d.Wrap])
	}
	return s
}

// swappableMapTypes are the map types a map may be created as instead of
// its own: keyed lookups whose values the program reaches the same way.
var swappableMapTypes = []uint32{mapHash, mapArray, mapPercpuHash, mapPercpuArray, mapLRUHash, mapLRUPercpuHash}

// mapBTFVariants lists the edits the operator may give map mi.
func mapBTFVariants(mi MapInfo) []MapBTF {
	if !mi.BTF || mi.Data {
		return nil
	}
	var out []MapBTF
	if slices.Contains(swappableMapTypes, mi.Type) {
		for _, t := range swappableMapTypes {
			if t != mi.Type && (mi.KeySize == 4 || (t != mapArray && t != mapPercpuArray)) {
				out = append(out, MapBTF{Type: t})
			}
		}
	}
	if mi.KeySize > 0 {
		for k := KeyTypedef; k <= KeyStruct; k++ {
			if k == KeyEnum && mi.KeySize != 1 && mi.KeySize != 2 && mi.KeySize != 4 && mi.KeySize != 8 {
				continue
			}
			out = append(out, MapBTF{Key: k})
		}
	}
	for i := range mi.ValueMembers {
		for w := WrapTypedef; w <= WrapVolatile; w++ {
			out = append(out, MapBTF{Member: i, Wrap: w})
		}
	}
	return out
}

// withMapBTF gives one of the maps m loads, drawn from r, other BTF drawn
// from mapBTFVariants; ok is false when no map m loads has BTF to change.
func (m Mutant) withMapBTF(r *rand.Rand, maps []MapInfo) (Mutant, bool) {
	var used []int
	for _, in := range m.Insns {
		if in.Filler || !in.IsLdImm64() || (in.Src != insn.PseudoMapFD && in.Src != insn.PseudoMapValue) {
			continue
		}
		k := int(in.Imm)
		if k >= 0 && k < len(maps) && !slices.Contains(used, k) && len(mapBTFVariants(maps[k])) > 0 &&
			!slices.ContainsFunc(m.MapBTFs, func(d MapBTF) bool { return d.Index == k }) {
			used = append(used, k)
		}
	}
	if len(used) == 0 {
		return m, false
	}
	k := used[r.IntN(len(used))]
	vs := mapBTFVariants(maps[k])
	d := vs[r.IntN(len(vs))]
	d.Index = k
	m.MapBTFs = append(slices.Clone(m.MapBTFs), d)
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)], MapBTFOperator+": "+d.String())
	return m.by(MapBTFOperator), true
}
