package loader

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Layout of an ELF64 symbol table entry (Elf64_Sym): name u32, info u8,
// other u8, shndx u16, value u64, size u64.
const (
	elf64SymSize       = 24
	elf64SymSizeOffset = 16
)

// legacyMapSectionPrefix names the sections that hold bpf_load.c or iproute2
// map definitions; cilium/ebpf uses the same prefix rule.
const legacyMapSectionPrefix = "maps"

// symPos locates a symbol: its section index and offset in that section.
type symPos struct {
	section int
	offset  uint64
}

// elfSymbol is the part of an ELF symbol this package needs.
type elfSymbol struct {
	index   int // index in the symbol table (0 is the null symbol)
	name    string
	section int
	value   uint64
	size    uint64
	typ     elf.SymType
	bind    elf.SymBind
	// visibility is the symbol's ELF visibility (st_other), which libbpf
	// reads to verify hidden global functions as static (hidden.go).
	visibility elf.SymVis
}

// elfInfo is what the package reads from the ELF file itself, next to
// cilium/ebpf: symbol positions, sizes and bindings.
type elfInfo struct {
	order     binary.ByteOrder
	is64      bool
	sections  []*elf.SectionHeader
	symbols   []elfSymbol
	symtabOff uint64
	symtabEnt uint64
	// strtabIdx is the section index of the symbol names (the symbol
	// table's sh_link).
	strtabIdx  int
	funcPos    map[string]symPos
	weak       map[string]bool
	legacyMaps map[string]legacyMapSym
	// legacyOrder lists the legacy map symbols by section, then offset:
	// the order of the map array a legacy loader builds (bpf_load.c from
	// its one "maps" section, PREVAIL's from every "maps/<name>"
	// section), which inner_map_idx indexes.
	legacyOrder []string
	// ksyms are the ksym variables the object declares, by name
	// (ksyms.go).
	ksyms map[string]ksymDecl
	// weakKconfig is set when the object declares weak extern __kconfig
	// variables (kconfig.go).
	weakKconfig bool
}

// legacyMapSym is a map symbol in a legacy "maps" section.
type legacyMapSym struct {
	section int
	offset  uint64
}

// Where the ELF64 header keeps the section header table (the ELF
// specification's e_shoff, e_shentsize and e_shnum).
const (
	elf64HeaderSize = 64
	offShoff        = 0x28
	offShentsize    = 0x3a
	offShnum        = 0x3c
)

// checkHeaderTable reports a file cut short before the end of its ELF64
// header or section header table, saying what is missing, where
// debug/elf only says EOF.
func checkHeaderTable(data []byte) error {
	if len(data) < elf64HeaderSize {
		return fmt.Errorf("%w: truncated: %d bytes, the ELF64 header alone is %d", ErrMalformed, len(data), elf64HeaderSize)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if elf.Data(data[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	shoff := order.Uint64(data[offShoff:])
	end := shoff + uint64(order.Uint16(data[offShentsize:]))*uint64(order.Uint16(data[offShnum:]))
	if end > uint64(len(data)) || end < shoff {
		return fmt.Errorf("%w: truncated: the section header table spans bytes %d-%d, the file has %d", ErrMalformed, shoff, end, len(data))
	}
	return nil
}

// inspectELF parses the ELF headers and symbol table of data, guarding
// against panics in debug/elf.
func inspectELF(data []byte) (info *elfInfo, err error) {
	if len(data) < len(elf.ELFMAG) || string(data[:len(elf.ELFMAG)]) != elf.ELFMAG {
		return nil, ErrNotELF
	}
	defer func() {
		if r := recover(); r != nil {
			info, err = nil, fmt.Errorf("%w: elf: %v", ErrMalformed, r)
		}
	}()

	if err := checkHeaderTable(data); err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if end := s.Offset + s.Size; s.Type != elf.SHT_NOBITS && end > uint64(len(data)) {
			return nil, fmt.Errorf("%w: truncated: section %s spans bytes %d-%d, the file has %d", ErrMalformed, s.Name, s.Offset, end, len(data))
		}
	}

	if f.Machine != elf.EM_NONE && f.Machine != elf.EM_BPF {
		return nil, fmt.Errorf("%w: machine is %s", ErrNotBPF, f.Machine)
	}
	if f.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("%w: %s, want ELFCLASS64", ErrNotBPF, f.Class)
	}

	info = &elfInfo{
		order:      f.ByteOrder,
		is64:       true,
		funcPos:    make(map[string]symPos),
		weak:       make(map[string]bool),
		legacyMaps: make(map[string]legacyMapSym),
	}
	for _, s := range f.Sections {
		hdr := s.SectionHeader
		info.sections = append(info.sections, &hdr)
		if s.Type == elf.SHT_SYMTAB {
			info.symtabOff, info.symtabEnt, info.strtabIdx = s.Offset, s.Entsize, int(s.Link)
		}
	}

	syms, err := f.Symbols()
	if err != nil {
		// cilium/ebpf reports a missing or broken symbol table itself, with
		// more context; without symbols there is nothing to repair here.
		return info, nil
	}
	for i, s := range syms {
		info.symbols = append(info.symbols, elfSymbol{
			index:      i + 1,
			name:       s.Name,
			section:    int(s.Section),
			value:      s.Value,
			size:       s.Size,
			typ:        elf.ST_TYPE(s.Info),
			bind:       elf.ST_BIND(s.Info),
			visibility: elf.ST_VISIBILITY(s.Other),
		})
	}

	for _, s := range info.symbols {
		if s.bind == elf.STB_WEAK {
			info.weak[s.name] = true
		}
		switch {
		case info.isProgramSymbol(s):
			if _, dup := info.funcPos[s.name]; !dup {
				info.funcPos[s.name] = symPos{s.section, s.value}
			}
		case info.isLegacyMapSymbol(s):
			info.legacyMaps[s.name] = legacyMapSym{section: s.section, offset: s.value}
		}
	}
	info.orderLegacyMaps()
	return info, nil
}

// section returns the header of section index idx, or nil.
func (info *elfInfo) section(idx int) *elf.SectionHeader {
	if idx <= 0 || idx >= len(info.sections) {
		return nil
	}
	return info.sections[idx]
}

// elf64RelSize is the size of an Elf64_Rel.
const elf64RelSize = 16

// elfRel is one Elf64_Rel entry whose symbol is in the symbol table.
type elfRel struct {
	off uint64 // in the section the relocation applies to
	typ uint32 // ELF64_R_TYPE
	sym *elfSymbol
}

// relocations returns the entries of relocation section rs that name a
// symbol of the table; none when rs is no SHT_REL section or lies outside
// data.
func (info *elfInfo) relocations(rs *elf.SectionHeader, data []byte) []elfRel {
	if rs.Type != elf.SHT_REL || rs.Offset+rs.Size > uint64(len(data)) {
		return nil
	}
	var out []elfRel
	rels := data[rs.Offset : rs.Offset+rs.Size]
	for i := 0; i+elf64RelSize <= len(rels); i += elf64RelSize {
		rinfo := info.order.Uint64(rels[i+8:])
		if sym := int(rinfo >> 32); sym >= 1 && sym <= len(info.symbols) {
			out = append(out, elfRel{off: info.order.Uint64(rels[i:]), typ: uint32(rinfo), sym: &info.symbols[sym-1]})
		}
	}
	return out
}

// isProgramSymbol reports whether s starts a function in an executable
// section, by the same rule cilium/ebpf uses (FUNC, or NOTYPE that is not a
// local label).
func (info *elfInfo) isProgramSymbol(s elfSymbol) bool {
	sec := info.section(s.section)
	if sec == nil || s.name == "" || sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_EXECINSTR == 0 {
		return false
	}
	switch s.typ {
	case elf.STT_FUNC:
		return true
	case elf.STT_NOTYPE:
		return s.bind != elf.STB_LOCAL
	}
	return false
}

// isLegacyMapSymbol reports whether s defines a map in a legacy maps section.
func (info *elfInfo) isLegacyMapSymbol(s elfSymbol) bool {
	sec := info.section(s.section)
	if sec == nil || s.name == "" || !strings.HasPrefix(sec.Name, legacyMapSectionPrefix) {
		return false
	}
	return s.typ == elf.STT_OBJECT || s.typ == elf.STT_NOTYPE
}

func (info *elfInfo) orderLegacyMaps() {
	names := make([]string, 0, len(info.legacyMaps))
	for n := range info.legacyMaps {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		pa, pb := info.legacyMaps[a], info.legacyMaps[b]
		if pa.section != pb.section {
			return pa.section - pb.section
		}
		if pa.offset != pb.offset {
			if pa.offset < pb.offset {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	info.legacyOrder = names
}

// position returns where a program's symbol sits in the file; programs whose
// symbol is unknown sort last.
func (info *elfInfo) position(section, name string) symPos {
	if info != nil {
		if p, ok := info.funcPos[name]; ok {
			return p
		}
	}
	return symPos{section: math.MaxInt, offset: math.MaxUint64}
}

// emptyProgram refuses an object with a program symbol of size 0 that
// starts where another program symbol of its section does: an empty
// function (clang's, for a body that is all undefined behaviour), which
// libbpf refuses as a corrupted program. Old objects whose symbols are all
// unsized (fillZeroSizes) have no two at one offset.
func (info *elfInfo) emptyProgram() error {
	type at struct {
		section int
		value   uint64
	}
	count := make(map[at]int)
	for _, s := range info.symbols {
		if info.isProgramSymbol(s) {
			count[at{s.section, s.value}]++
		}
	}
	for _, s := range info.symbols {
		if info.isProgramSymbol(s) && s.size == 0 && count[at{s.section, s.value}] > 1 {
			name := ""
			if sec := info.section(s.section); sec != nil {
				name = sec.Name
			}
			return fmt.Errorf("%w: sec '%s': corrupted program '%s', offset %d, size 0", ErrMalformed, name, s.name, s.value)
		}
	}
	return nil
}

// fillZeroSizes returns data with the size of every zero-sized program or
// legacy map symbol set to its extent: up to the next such symbol in the
// same section, or to the end of the section. Old clang and iproute2 objects
// leave these sizes at zero; cilium/ebpf needs them. data itself is never
// modified.
func (info *elfInfo) fillZeroSizes(data []byte) ([]byte, []string) {
	if !info.is64 || info.symtabEnt < elf64SymSize {
		return data, nil
	}

	// Offsets of all candidate symbols per section.
	starts := make(map[int][]uint64)
	var candidates []elfSymbol
	for _, s := range info.symbols {
		if info.isProgramSymbol(s) || info.isLegacyMapSymbol(s) {
			starts[s.section] = append(starts[s.section], s.value)
			candidates = append(candidates, s)
		}
	}
	for k := range starts {
		slices.Sort(starts[k])
	}

	var out []byte
	filled := 0
	for _, s := range candidates {
		if s.size != 0 {
			continue
		}
		sec := info.section(s.section)
		if sec == nil || s.value >= sec.Size {
			continue
		}
		end := sec.Size
		offs := starts[s.section]
		if i, _ := slices.BinarySearch(offs, s.value+1); i < len(offs) {
			end = offs[i]
		}
		pos, ok := info.symField(s, elf64SymSizeOffset, 8, len(data))
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(data)
		}
		info.order.PutUint64(out[pos:pos+8], end-s.value)
		filled++
	}
	if filled == 0 {
		return data, nil
	}
	return out, []string{fmt.Sprintf("ELF: filled %d zero st_size symbols", filled)}
}

// elf64SymInfoOffset is where st_info (binding << 4 | type) sits in an
// Elf64_Sym.
const elf64SymInfoOffset = 4

// bindDefinedWeakObjects returns data with every weak data symbol that the
// object itself defines (a map or a global variable, such as the maps
// libbpf's usdt.bpf.h declares __weak) bound as global. Within one object a
// defined weak symbol resolves to its own definition, exactly like a global
// one, which is how libbpf links it; cilium/ebpf refuses relocations
// against weak bindings. data itself is never modified.
func (info *elfInfo) bindDefinedWeakObjects(data []byte) ([]byte, []string) {
	out, names := info.bindWeakAsGlobal(data, func(s elfSymbol) bool {
		return s.typ == elf.STT_OBJECT && s.section != int(elf.SHN_UNDEF) && s.section < int(elf.SHN_LORESERVE)
	})
	if len(names) == 0 {
		return data, nil
	}
	return out, []string{fmt.Sprintf("ELF: bound %d defined weak data symbols as global (%s)", len(names), strings.Join(names, ", "))}
}

// bindWeakAsGlobal returns data with every weak symbol that pick selects
// bound as global, and their names; data itself is never modified.
func (info *elfInfo) bindWeakAsGlobal(data []byte, pick func(elfSymbol) bool) ([]byte, []string) {
	if !info.is64 || info.symtabEnt < elf64SymSize {
		return data, nil
	}
	out := data
	var names []string
	for _, s := range info.symbols {
		if s.bind != elf.STB_WEAK || !pick(s) {
			continue
		}
		pos, ok := info.symField(s, elf64SymInfoOffset, 1, len(data))
		if !ok {
			continue
		}
		if names == nil {
			out = slices.Clone(data)
		}
		out[pos] = byte(elf.ST_INFO(elf.STB_GLOBAL, s.typ))
		names = append(names, s.name)
	}
	return out, names
}

// symField returns the file offset of the size-byte field at offset off of
// symbol s's symbol table entry, and whether it lies within a file of
// dataLen bytes (offsets that overflow are refused).
func (info *elfInfo) symField(s elfSymbol, off, size uint64, dataLen int) (uint64, bool) {
	pos := info.symtabOff + uint64(s.index)*info.symtabEnt + off
	return pos, pos >= info.symtabOff && pos+size <= uint64(dataLen)
}
