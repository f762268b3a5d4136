package loader

import (
	"bytes"
	"debug/elf"
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
)

// Objects whose functions all live in .text: test programs built without
// SEC() annotations, which loaders such as PREVAIL's or iproute2's
// ("sec .text") verify function by function with a program type given on
// their command line. libbpf and cilium/ebpf take .text functions for
// subprograms only, so such an object has no programs. When the caller
// names a program type ([Options.TypeOverride]), the loader exposes the
// object's global .text functions as programs of that type: the section is
// renamed, in the ELF section names and in the BTF strings that line and
// function info name it by, to a name cilium/ebpf reads as an untyped
// program section, and the programs get their section name back afterwards.

// textSection is the section of functions without a SEC() annotation.
const textSection = ".text"

// textProgramsSection is what .text is renamed to: as long as ".text", so
// that the rename is made in place, and a name no loader gives a type.
const textProgramsSection = "_text"

// textOnly reports whether every function of the object lives in .text:
// no other executable section holds code.
func (info *elfInfo) textOnly() bool {
	found := false
	for _, s := range info.sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 || s.Size == 0 {
			continue
		}
		if s.Name != textSection {
			return false
		}
		found = true
	}
	return found
}

// hasCode reports whether any executable section of the object holds
// instructions.
func (info *elfInfo) hasCode() bool {
	return slices.ContainsFunc(info.sections, func(s *elf.SectionHeader) bool {
		return s.Type == elf.SHT_PROGBITS && s.Flags&elf.SHF_EXECINSTR != 0 && s.Size > 0
	})
}

// textEntryPoints returns the global functions of .text: the programs of a
// text-only object. Static functions stay subprograms.
func (info *elfInfo) textEntryPoints() map[string]bool {
	entries := make(map[string]bool)
	for _, s := range info.symbols {
		sec := info.section(s.section)
		if sec != nil && sec.Name == textSection && info.isProgramSymbol(s) && s.bind == elf.STB_GLOBAL {
			entries[s.name] = true
		}
	}
	return entries
}

// exposeTextPrograms returns data with .text renamed to
// textProgramsSection in the section name table and in the BTF string
// table, so that cilium/ebpf makes a program of each of its functions.
// data itself is never modified; ok is false when a name could not be found
// where the headers say it is.
func (info *elfInfo) exposeTextPrograms(data []byte) (out []byte, ok bool) {
	out = slices.Clone(data)
	renamed := false
	for _, s := range info.sections {
		if s.Name != textSection {
			continue
		}
		pos, ok := info.sectionNameOffset(s, data)
		if !ok || !bytes.Equal(out[pos:pos+len(textSection)], []byte(textSection)) {
			return data, false
		}
		copy(out[pos:], textProgramsSection)
		renamed = true
	}
	info.renameBTFString(out, textSection, textProgramsSection)
	return out, renamed
}

// restoreTextPrograms turns the programs cilium/ebpf found in the renamed
// .text back into .text programs: the global functions stay programs (with
// their section name restored), the static ones, linked into their callers
// already, are dropped. It returns the warning that says so.
func (info *elfInfo) restoreTextPrograms(spec *ebpf.CollectionSpec) string {
	entries := info.textEntryPoints()
	var names []string
	for name, ps := range spec.Programs {
		if ps == nil || ps.SectionName != textProgramsSection {
			continue
		}
		if !entries[name] {
			delete(spec.Programs, name)
			continue
		}
		ps.SectionName = textSection
		names = append(names, name)
	}
	slices.Sort(names)
	return fmt.Sprintf("ELF: every function is in .text: its global functions are programs of the type given (%s)", strings.Join(names, ", "))
}

// Where the ELF64 header keeps the index of the section name table
// (e_shstrndx), and where an Elf64_Shdr keeps its name (sh_name, an offset
// in that table) and its file offset (sh_offset).
const (
	offShstrndx  = 0x3e
	shdrOffName  = 0x00
	shdrOffStart = 0x18
)

// sectionNameOffset returns the file offset of section s's name in the
// section name table, read from the raw section headers (debug/elf does not
// keep sh_name).
func (info *elfInfo) sectionNameOffset(s *elf.SectionHeader, data []byte) (int, bool) {
	idx := slices.Index(info.sections, s)
	o := info.order
	shoff, shentsize := o.Uint64(data[offShoff:]), uint64(o.Uint16(data[offShentsize:]))
	strndx := uint64(o.Uint16(data[offShstrndx:]))
	if idx < 0 || strndx >= uint64(len(info.sections)) {
		return 0, false
	}
	hdr := func(i uint64) uint64 { return shoff + i*shentsize }
	if hdr(strndx)+shdrOffStart+8 > uint64(len(data)) || hdr(uint64(idx))+4 > uint64(len(data)) {
		return 0, false
	}
	pos := o.Uint64(data[hdr(strndx)+shdrOffStart:]) + uint64(o.Uint32(data[hdr(uint64(idx))+shdrOffName:]))
	if pos+uint64(len(textSection)) > uint64(len(data)) {
		return 0, false
	}
	return int(pos), true
}
