package loader

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// The object's own BTF (.BTF section), read as raw bytes: the few repairs
// made to it before cilium/ebpf reads the object change one type reference
// in place, so that type ids, and with them line info, function info and
// CO-RE relocations, stay as the compiler wrote them.

// btfMagic opens a raw BTF blob (struct btf_header's magic).
const btfMagic = 0xeb9f

// Layout of struct btf_header and struct btf_type.
const (
	btfHeaderMinLen = 24 // magic u16, version u8, flags u8, hdr_len, type_off, type_len, str_off, str_len (u32 each)
	btfTypeLen      = 12 // name_off, info, size or type
)

// BTF kinds (include/uapi/linux/btf.h) the repairs look at or must skip.
const (
	btfKindInt       = 1
	btfKindPtr       = 2
	btfKindArray     = 3
	btfKindStruct    = 4
	btfKindUnion     = 5
	btfKindEnum      = 6
	btfKindFwd       = 7
	btfKindTypedef   = 8
	btfKindVolatile  = 9
	btfKindConst     = 10
	btfKindRestrict  = 11
	btfKindFunc      = 12
	btfKindFuncProto = 13
	btfKindVar       = 14
	btfKindDatasec   = 15
	btfKindFloat     = 16
	btfKindDeclTag   = 17
	btfKindTypeTag   = 18
	btfKindEnum64    = 19
)

// btfMapsSection is the section of BTF map definitions.
const btfMapsSection = ".maps"

// rawBTF is a parsed view of a .BTF section inside an object's bytes.
type rawBTF struct {
	order binary.ByteOrder
	data  []byte // the whole object
	// typeStart[id] is the file offset of type id's struct btf_type (id 0,
	// void, has none).
	typeStart []int
	strOff    int // file offset of the string section
	strLen    int
}

// parseRawBTF reads the .BTF section of the object in data, or returns nil
// when it has none or it is not well formed (cilium/ebpf then says why).
func (info *elfInfo) parseRawBTF(data []byte) *rawBTF {
	var sec *elf.SectionHeader
	for _, s := range info.sections {
		if s.Name == ".BTF" && s.Type != elf.SHT_NOBITS {
			sec = s
		}
	}
	if sec == nil || sec.Offset+sec.Size > uint64(len(data)) || sec.Size < btfHeaderMinLen {
		return nil
	}
	base := int(sec.Offset)
	end := base + int(sec.Size)
	o := info.order
	if o.Uint16(data[base:]) != btfMagic {
		return nil
	}
	hdrLen := int(o.Uint32(data[base+4:]))
	typeOff, typeLen := int(o.Uint32(data[base+8:])), int(o.Uint32(data[base+12:]))
	strOff, strLen := int(o.Uint32(data[base+16:])), int(o.Uint32(data[base+20:]))
	start := base + hdrLen + typeOff
	if hdrLen < btfHeaderMinLen || typeOff < 0 || typeLen < 0 || start+typeLen > end ||
		base+hdrLen+strOff+strLen > end {
		return nil
	}
	b := &rawBTF{order: o, data: data, typeStart: []int{0}, strOff: base + hdrLen + strOff, strLen: strLen}
	for pos := start; pos < start+typeLen; {
		if pos+btfTypeLen > start+typeLen {
			return nil
		}
		b.typeStart = append(b.typeStart, pos)
		n, ok := btfTypeTail(b.kindAt(pos), b.vlenAt(pos))
		if !ok || pos+btfTypeLen+n > start+typeLen {
			return nil
		}
		pos += btfTypeLen + n
	}
	return b
}

// btfTypeTail is how many bytes follow a struct btf_type of this kind and
// vlen (btf_type_size less the common part); false for an unknown kind.
func btfTypeTail(kind, vlen int) (int, bool) {
	switch kind {
	case btfKindPtr, btfKindFwd, btfKindTypedef, btfKindVolatile, btfKindConst, btfKindRestrict,
		btfKindFunc, btfKindFloat, btfKindTypeTag:
		return 0, true
	case btfKindInt, btfKindVar, btfKindDeclTag:
		return 4, true
	case btfKindArray:
		return 12, true
	case btfKindStruct, btfKindUnion, btfKindDatasec, btfKindEnum64:
		return 12 * vlen, true
	case btfKindEnum, btfKindFuncProto:
		return 8 * vlen, true
	}
	return 0, false
}

func (b *rawBTF) kindAt(pos int) int { return int(b.order.Uint32(b.data[pos+4:])>>24) & 0x1f }
func (b *rawBTF) vlenAt(pos int) int { return int(b.order.Uint32(b.data[pos+4:]) & 0xffff) }

// valid reports whether id names a type of the blob.
func (b *rawBTF) valid(id uint32) bool { return id > 0 && int(id) < len(b.typeStart) }

// kind returns the kind of type id (0 for void or an unknown id).
func (b *rawBTF) kind(id uint32) int {
	if !b.valid(id) {
		return 0
	}
	return b.kindAt(b.typeStart[id])
}

// name returns the name of type id.
func (b *rawBTF) name(id uint32) string {
	if !b.valid(id) {
		return ""
	}
	return b.str(b.order.Uint32(b.data[b.typeStart[id]:]))
}

// str returns the string at off in the string section.
func (b *rawBTF) str(off uint32) string {
	if int(off) >= b.strLen {
		return ""
	}
	s := b.data[b.strOff+int(off) : b.strOff+b.strLen]
	if i := slices.Index(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s)
}

// refField is the file offset of type id's size_or_type word: the type a
// pointer, modifier, typedef or variable refers to.
func (b *rawBTF) refField(id uint32) int { return b.typeStart[id] + 8 }

// ref returns the type id that type id refers to.
func (b *rawBTF) ref(id uint32) uint32 { return b.order.Uint32(b.data[b.refField(id):]) }

// isModifier reports the kinds libbpf's skip_mods_and_typedefs skips.
func isModifier(kind int) bool {
	switch kind {
	case btfKindTypedef, btfKindVolatile, btfKindConst, btfKindRestrict, btfKindTypeTag:
		return true
	}
	return false
}

// skipMods is skip_mods_and_typedefs: the type behind id's modifiers and
// typedefs.
func (b *rawBTF) skipMods(id uint32) uint32 {
	for range len(b.typeStart) {
		if !isModifier(b.kind(id)) {
			return id
		}
		id = b.ref(id)
	}
	return id
}

// btfRawMember is one entry of a struct's member list.
type btfRawMember struct {
	name string
	typ  uint32
}

// members returns the members of struct or union id.
func (b *rawBTF) members(id uint32) []btfRawMember {
	k := b.kind(id)
	if k != btfKindStruct && k != btfKindUnion {
		return nil
	}
	pos := b.typeStart[id]
	out := make([]btfRawMember, 0, b.vlenAt(pos))
	for i := range b.vlenAt(pos) {
		m := pos + btfTypeLen + 12*i
		out = append(out, btfRawMember{name: b.str(b.order.Uint32(b.data[m:])), typ: b.order.Uint32(b.data[m+4:])})
	}
	return out
}

// datasecVars returns the ids of the variables of every datasec named
// name, in their order.
func (b *rawBTF) datasecVars(name string) []uint32 {
	var vars []uint32
	for id := uint32(1); b.valid(id); id++ {
		if b.kind(id) != btfKindDatasec || b.name(id) != name {
			continue
		}
		pos := b.typeStart[id]
		for i := range b.vlenAt(pos) {
			if v := b.order.Uint32(b.data[pos+btfTypeLen+12*i:]); b.kind(v) == btfKindVar {
				vars = append(vars, v)
			}
		}
	}
	return vars
}

// mapDefinitions returns the struct type of each variable of the .maps
// datasec, by variable name.
func (b *rawBTF) mapDefinitions() map[string]uint32 {
	defs := make(map[string]uint32)
	for _, v := range b.datasecVars(btfMapsSection) {
		defs[b.name(v)] = b.skipMods(b.ref(v))
	}
	return defs
}

// resolveValuesTypedefs returns data with the 'values' member of every BTF
// map definition pointing straight at the struct or function prototype it
// names. libbpf's parse_btf_map_def skips typedefs and modifiers between
// the array, the pointer and the inner map (or program) type, so
// __array(values, some_typedef_t) declares a map-in-map; cilium/ebpf takes
// the pointer's target as it is and refuses the typedef. The pointer type is
// repointed to the resolved type, which changes no layout: every BTF reader
// skips typedefs on the way to a struct. data itself is never modified.
func (info *elfInfo) resolveValuesTypedefs(data []byte) ([]byte, []string) {
	b := info.parseRawBTF(data)
	if b == nil {
		return data, nil
	}
	var out []byte
	var fixed []string
	defs := b.mapDefinitions()
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, m := range b.members(defs[name]) {
			if m.name != "values" || b.kind(m.typ) != btfKindArray {
				continue
			}
			elemField := b.typeStart[m.typ] + btfTypeLen
			elem := b.order.Uint32(b.data[elemField:])
			ptr := b.skipMods(elem)
			if b.kind(ptr) != btfKindPtr {
				continue
			}
			target := b.skipMods(b.ref(ptr))
			if elem == ptr && b.ref(ptr) == target {
				continue
			}
			if out == nil {
				out = slices.Clone(data)
				b.data = out
			}
			b.order.PutUint32(out[elemField:], ptr)
			b.order.PutUint32(out[b.refField(ptr):], target)
			fixed = append(fixed, fmt.Sprintf("%s (%s)", name, b.name(target)))
		}
	}
	if out == nil {
		return data, nil
	}
	return out, []string{fmt.Sprintf("BTF: map definitions declare their values through a typedef, resolved as libbpf does: %s", strings.Join(fixed, ", "))}
}

// externMap returns, of the map definitions an unlinked unit declares
// extern (a variable of the .maps datasec whose symbol is undefined, left
// for the linker to find in another unit), the first by name.
func (info *elfInfo) externMap(data []byte) (string, bool) {
	b := info.parseRawBTF(data)
	if b == nil {
		return "", false
	}
	vars := b.datasecVars(btfMapsSection)
	if len(vars) == 0 {
		return "", false
	}
	names := make(map[string]bool, len(vars))
	for _, v := range vars {
		names[b.name(v)] = true
	}
	var externs []string
	for _, s := range info.symbols {
		if s.section == int(elf.SHN_UNDEF) && s.bind != elf.STB_LOCAL && names[s.name] {
			externs = append(externs, s.name)
		}
	}
	if len(externs) == 0 {
		return "", false
	}
	return slices.Min(externs), true
}
