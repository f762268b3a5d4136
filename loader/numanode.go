package loader

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
)

// BTF map definitions may name the NUMA node of their map
// (__uint(numa_node, N), with BPF_F_NUMA_NODE in map_flags). libbpf's
// parse_btf_map_def reads the field into the map's numa_node; cilium/ebpf
// refuses the definition ("unrecognized field numa_node"), so an object
// libbpf opens would be unreadable. The node plays no part in verification,
// only in map creation; the repair hides the member from cilium/ebpf and
// gives the node back to the map spec afterwards.

// numaNodeField is the member libbpf reads as the map's NUMA node.
const numaNodeField = "numa_node"

// numaNodes is the NUMA node each BTF map definition names, by map name, and
// the node each map-in-map's inner definition names, by outer map name.
type numaNodes struct {
	maps, inner map[string]uint32
}

// hideNumaNodes returns data with the numa_node member of every BTF map
// definition, and of every inner map definition a 'values' member names,
// turned into a second copy of the definition's 'type' member (same name and
// type; a repeated 'type' sets the map type twice to the same value), and
// the nodes so hidden. The member keeps its offset, so the struct's layout
// and every type id stay as the compiler wrote them. data itself is never
// modified.
func (info *elfInfo) hideNumaNodes(data []byte) ([]byte, numaNodes, []string) {
	nodes := numaNodes{maps: map[string]uint32{}, inner: map[string]uint32{}}
	b := info.parseRawBTF(data)
	if b == nil {
		return data, nodes, nil
	}
	defs := b.mapDefinitions()
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	// Every node is read before any member is hidden: a struct may define
	// both a map and the inner map of another.
	hiddenAt := map[int]uint32{} // member entry offset -> its struct
	var hidden []string
	note := func(def uint32) (uint32, bool) {
		node, pos, ok := b.numaNodeMember(def)
		if ok {
			hiddenAt[pos] = def
		}
		return node, ok
	}
	for _, name := range names {
		def := defs[name]
		if node, ok := note(def); ok {
			nodes.maps[name] = node
			hidden = append(hidden, fmt.Sprintf("%s (%d)", name, node))
		}
		if inner, ok := b.innerMapDefinition(def); ok {
			if node, ok := note(inner); ok {
				nodes.inner[name] = node
				hidden = append(hidden, fmt.Sprintf("%s's inner map (%d)", name, node))
			}
		}
	}
	if len(hiddenAt) == 0 {
		return data, nodes, nil
	}
	out := slices.Clone(data)
	b.data = out
	for pos, def := range hiddenAt {
		b.copyTypeMember(def, pos)
	}
	return out, nodes, []string{fmt.Sprintf("BTF: map definitions name a NUMA node, read as libbpf does: %s", strings.Join(hidden, ", "))}
}

// numaNodeMember returns the node the numa_node member of struct def names
// (the element count of the array its pointer targets, as libbpf's
// get_map_field_int reads every integer field) and the file offset of the
// member's entry; false when def has no such member still to hide.
func (b *rawBTF) numaNodeMember(def uint32) (node uint32, pos int, ok bool) {
	for i, m := range b.members(def) {
		if m.name != numaNodeField {
			continue
		}
		ptr := b.skipMods(m.typ)
		if b.kind(ptr) != btfKindPtr {
			return 0, 0, false
		}
		arr := b.skipMods(b.ref(ptr))
		if b.kind(arr) != btfKindArray {
			return 0, 0, false
		}
		nelems := b.order.Uint32(b.data[b.typeStart[arr]+btfTypeLen+8:])
		return nelems, b.typeStart[def] + btfTypeLen + 12*i, true
	}
	return 0, 0, false
}

// copyTypeMember overwrites the name and type of the member entry at pos
// with those of struct def's 'type' member; without one, nothing changes
// (cilium/ebpf then says why the definition is unreadable).
func (b *rawBTF) copyTypeMember(def uint32, pos int) {
	for i, m := range b.members(def) {
		if m.name == "type" {
			src := b.typeStart[def] + btfTypeLen + 12*i
			copy(b.data[pos:pos+8], b.data[src:src+8])
			return
		}
	}
}

// innerMapDefinition returns the struct a map definition's 'values' member
// names (__array(values, struct inner)): the inner map of a map-in-map.
func (b *rawBTF) innerMapDefinition(def uint32) (uint32, bool) {
	for _, m := range b.members(def) {
		if m.name != "values" || b.kind(m.typ) != btfKindArray {
			continue
		}
		ptr := b.skipMods(b.order.Uint32(b.data[b.typeStart[m.typ]+btfTypeLen:]))
		if b.kind(ptr) != btfKindPtr {
			return 0, false
		}
		inner := b.skipMods(b.ref(ptr))
		return inner, b.kind(inner) == btfKindStruct
	}
	return 0, false
}

// restoreNumaNodes gives the map specs the NUMA nodes hideNumaNodes took
// from their definitions.
func restoreNumaNodes(spec *ebpf.CollectionSpec, nodes numaNodes) {
	for name, node := range nodes.maps {
		if ms, ok := spec.Maps[name]; ok {
			ms.NumaNode = node
		}
	}
	for name, node := range nodes.inner {
		if ms, ok := spec.Maps[name]; ok && ms.InnerMap != nil {
			ms.InnerMap.NumaNode = node
		}
	}
}
