package loader

import (
	"bytes"
	"debug/elf"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// Named zero-initialised data sections. A global placed in ".bss.<name>"
// (the kernel selftests' private(name): hidden variables that want a map
// of their own, often for a bpf_spin_lock) is a map of its own to libbpf,
// named after the section, as ".data.<name>" and ".rodata.<name>" are.
// cilium/ebpf reads ".data*" and ".rodata*" sections but of the .bss ones
// only ".bss" itself, and refuses a relocation into any other. The loader
// renames each such section, in the ELF section names and in the BTF
// string table that names its Datasec, to a name of the same length
// cilium/ebpf reads as data (".bss.x" to ".datax"), and gives the map,
// its Datasec, its variables and the instructions that refer to it their
// name back afterwards.
//
// The globals of the arena's address space (__arena, the section
// ".addr_space.1") are renamed the same way; maps.go then points their
// loads at the arena map, where libbpf places them. So are libbpf's
// per-CPU data sections (".percpu*"), whose maps percpu.go then drops.

// namedBSSPrefix starts the names of named .bss sections.
const namedBSSPrefix = ".bss."

// namedBSSStandIn replaces namedBSSPrefix while cilium/ebpf reads the
// object: a data section prefix of the same length.
const namedBSSStandIn = ".data"

// arenaSectionStandIn replaces arenaSection while cilium/ebpf reads the
// object: a data section name of the same length.
const arenaSectionStandIn = ".data.arena.1"

// dataStandIn returns the name a section is read under, when cilium/ebpf
// does not read it as data under its own.
func dataStandIn(name string) (string, bool) {
	if name == arenaSection {
		return arenaSectionStandIn, true
	}
	if rest, ok := strings.CutPrefix(name, namedBSSPrefix); ok {
		return namedBSSStandIn + rest, true
	}
	if isPercpuSection(name) {
		// percpu.go drops the map once it has its name back.
		return percpuStandIn + strings.TrimPrefix(name, percpuSection), true
	}
	return "", false
}

// renameNamedBSS returns data with every named .bss section and the
// arena's section renamed to its stand-in, and the original names by
// stand-in. data itself is never
// modified. A section whose stand-in name is taken, or whose name is not
// where the headers say, keeps its name.
func (info *elfInfo) renameNamedBSS(data []byte) ([]byte, map[string]string) {
	taken := make(map[string]bool, len(info.sections))
	for _, s := range info.sections {
		taken[s.Name] = true
	}
	out := data
	renamed := map[string]string{}
	for _, s := range info.sections {
		standIn, ok := dataStandIn(s.Name)
		if !ok || taken[standIn] || (s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_PROGBITS) {
			continue
		}
		if out, ok = info.renameSection(out, s, standIn); ok {
			taken[standIn] = true
			renamed[standIn] = s.Name
		}
	}
	if len(renamed) == 0 {
		return data, nil
	}
	return out, renamed
}

// renameBTFString rewrites, in place in out, every string of the BTF
// string table that is exactly from to to, which has the same length.
func (info *elfInfo) renameBTFString(out []byte, from, to string) {
	b := info.parseRawBTF(out)
	if b == nil {
		return
	}
	strs := out[b.strOff : b.strOff+b.strLen]
	name := append([]byte(from), 0)
	for i := 0; i+len(name) <= len(strs); i++ {
		if (i == 0 || strs[i-1] == 0) && bytes.Equal(strs[i:i+len(name)], name) {
			copy(strs[i:], to)
		}
	}
}

// restoreNamedBSS gives the maps cilium/ebpf made of renamed sections
// their section's name back: the map, its Datasec value type, its
// variables and the instructions that refer to it.
func restoreNamedBSS(spec *ebpf.CollectionSpec, renamed map[string]string) {
	for standIn, name := range renamed {
		if ms, ok := spec.Maps[standIn]; ok {
			delete(spec.Maps, standIn)
			ms.Name = name
			if ds, ok := ms.Value.(*btf.Datasec); ok {
				ds.Name = name
			}
			spec.Maps[name] = ms
		}
	}
	for _, v := range spec.Variables {
		if name, ok := renamed[v.SectionName]; ok {
			v.SectionName = name
		}
	}
	for _, ps := range spec.Programs {
		if ps == nil {
			continue
		}
		for i := range ps.Instructions {
			if name, ok := renamed[ps.Instructions[i].Reference()]; ok {
				ps.Instructions[i] = ps.Instructions[i].WithReference(name)
			}
		}
	}
}
