package loader

import (
	"debug/elf"
	"fmt"
	"slices"
	"strings"
)

// Custom zero-initialised data sections: libbpf reads every ".bss.NAME"
// section of an object as a data section of its own (a one-element
// array map, like .bss), which is how programs keep globals apart, each
// group in its own map value (the kernel selftests' private(NAME) globals,
// whose bpf_spin_lock protects the lists and trees beside it). cilium/ebpf
// reads ".bss" itself and any ".data*" section but no ".bss.NAME", and
// refuses the references to one. The loader renames each such section,
// and the BTF data section describing it, to ".dataNAME": a name of the
// same length, so both string tables are patched in place, that
// cilium/ebpf reads as a writable data section. A NOBITS section is
// zero-filled whatever its name, as libbpf makes it; only the map's name
// differs from libbpf's.

// Prefixes of the sections renamed: the same length.
const (
	bssSectionPrefix  = ".bss."
	dataSectionPrefix = ".data"
)

// renameBSSSections returns data with every ".bss.NAME" section named
// ".dataNAME", in the section names and in the object's BTF, and the
// warnings saying so. data itself is never modified; when a name cannot
// be patched alone (a string shared with another name), data is returned
// unchanged and cilium/ebpf refuses the object as before.
func (info *elfInfo) renameBSSSections(data []byte) ([]byte, []string) {
	var idxs []int
	for i, s := range info.sections {
		if strings.HasPrefix(s.Name, bssSectionPrefix) && len(s.Name) > len(bssSectionPrefix) {
			idxs = append(idxs, i)
		}
	}
	if len(idxs) == 0 || len(data) < offShstrndx+2 {
		return data, nil
	}
	out := slices.Clone(data)
	var warnings []string
	for _, idx := range idxs {
		name := info.sections[idx].Name
		if !info.patchSectionName(out, idx) || !info.patchDatasecName(out, name) {
			return data, nil
		}
		warnings = append(warnings, fmt.Sprintf("ELF: section %s read as a data section named %s, as libbpf reads %s* sections", name, renamedBSS(name), bssSectionPrefix))
	}
	return out, warnings
}

// renamedBSS is the name a ".bss.NAME" section is given.
func renamedBSS(name string) string {
	return dataSectionPrefix + strings.TrimPrefix(name, bssSectionPrefix)
}

// patchSectionName renames section idx in the section name table of out,
// unless another section's name shares its bytes.
func (info *elfInfo) patchSectionName(out []byte, idx int) bool {
	o := info.order
	strtab := info.section(int(o.Uint16(out[offShstrndx:])))
	if strtab == nil || strtab.Type != elf.SHT_STRTAB {
		return false
	}
	nameOff := func(i int) (uint64, bool) {
		pos, ok := info.sectionHeaderOffset(i, out)
		if !ok {
			return 0, false
		}
		return uint64(o.Uint32(out[pos:])), true
	}
	off, ok := nameOff(idx)
	name := info.sections[idx].Name
	end := off + uint64(len(name))
	if !ok || end > strtab.Size || strtab.Offset+end > uint64(len(out)) {
		return false
	}
	for i := 1; i < len(info.sections); i++ {
		if other, ok := nameOff(i); i != idx && ok && other < end && other+uint64(len(info.sections[i].Name)) > off {
			return false
		}
	}
	at := strtab.Offset + off
	if string(out[at:at+uint64(len(name))]) != name {
		return false
	}
	copy(out[at:], dataSectionPrefix)
	return true
}

// patchDatasecName renames the BTF data section called name in out,
// unless another type's name shares its bytes. An object without such a
// data section has nothing to patch.
func (info *elfInfo) patchDatasecName(out []byte, name string) bool {
	b := info.parseRawBTF(out)
	if b == nil {
		return true
	}
	nameOffOf := func(id int) uint32 { return b.order.Uint32(out[b.typeStart[id]:]) }
	target := -1
	for id := 1; id < len(b.typeStart); id++ {
		if b.kind(uint32(id)) == btfKindDatasec && b.name(uint32(id)) == name {
			target = id
		}
	}
	if target < 0 {
		return true
	}
	off := nameOffOf(target)
	end := off + uint32(len(name))
	for id := 1; id < len(b.typeStart); id++ {
		other := nameOffOf(id)
		if id != target && other < end && other+uint32(len(b.name(uint32(id)))) > off {
			return false
		}
	}
	copy(out[b.strOff+int(off):], dataSectionPrefix)
	return true
}
