package loader

import (
	"debug/elf"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"slices"
)

// Per-CPU global data. libbpf 1.8 reads the sections ".percpu" and
// ".percpu.*" as per-CPU global data: each is a BPF_MAP_TYPE_PERCPU_ARRAY of
// one element whose variables the programs address with
// BPF_PSEUDO_MAP_VALUE loads. The 6.18 kernel has no direct value access to
// per-CPU arrays (resolve_pseudo_ldimm64: "no direct value access support
// for this map type"), so libbpf's FEAT_PERCPU_DATA probe fails there and
// bpf_object__create_maps skips these maps. It relocates the programs
// before it creates the maps, though, so their loads already name the map's
// placeholder file descriptor (a memfd, create_placeholder_fd), which is no
// map: the kernel refuses every program holding such a load, reached or
// not, before verifying it ("fd 4 is not pointing to valid bpf_map",
// EINVAL; the number is the loading process's). cilium/ebpf refuses the
// whole object instead (a relocation into a section it does not know).
//
// The loader reads such a section under a data section name of the same
// length (".percpu" becomes ".datapc", ".percpu.x" ".datapc.x"), then
// leaves the loads of its map bound to no map (Program.UnboundMapLoads,
// whose immediate, 0, is the file descriptor the kernel is handed) and
// drops the map and its variables from the spec.

// percpuSection starts the names of libbpf's per-CPU data sections.
const percpuSection = ".percpu"

// percpuStandIn replaces percpuSection while cilium/ebpf reads the object:
// a data section prefix of the same length.
const percpuStandIn = ".datapc"

// isPercpuSection reports whether libbpf reads the section named name as
// per-CPU global data (bpf_object__elf_collect).
func isPercpuSection(name string) bool {
	return name == percpuSection || strings.HasPrefix(name, percpuSection+".")
}

// libbpfGlobalDataSection reports whether libbpf makes a global data map
// of s (bpf_object__elf_collect's SEC_DATA, SEC_RODATA, SEC_PERCPU and
// SEC_BSS, which bpf_object__init_global_data_maps turns into maps, in
// section order, when they are not empty).
func libbpfGlobalDataSection(s *elf.SectionHeader) bool {
	if s.Size == 0 {
		return false
	}
	dotted := func(prefix string) bool { return s.Name == prefix || strings.HasPrefix(s.Name, prefix+".") }
	switch s.Type {
	case elf.SHT_PROGBITS:
		return s.Flags&elf.SHF_EXECINSTR == 0 && (dotted(".data") || dotted(".rodata") || isPercpuSection(s.Name))
	case elf.SHT_NOBITS:
		return dotted(".bss")
	}
	return false
}

// percpuMaps is what renamePercpuSections did: for each stand-in section
// name, the original name and libbpf's index of its map.
type percpuMaps map[string]percpuMap

// percpuMap is one per-CPU data section read under a stand-in name.
type percpuMap struct {
	name  string
	index int
}

// renamePercpuSections returns data with every per-CPU data section renamed
// to its stand-in, and what it renamed. data itself is never modified. A
// section whose stand-in is taken keeps its name (cilium/ebpf then refuses
// the object, as before).
func (info *elfInfo) renamePercpuSections(data []byte) ([]byte, percpuMaps) {
	taken := make(map[string]bool, len(info.sections))
	for _, s := range info.sections {
		taken[s.Name] = true
	}
	// libbpf numbers the maps of the .maps section first, then the
	// global data sections in section order.
	index := 0
	if b := info.parseRawBTF(data); b != nil {
		index = len(b.datasecVars(btfMapsSection))
	}
	out := data
	var renamed percpuMaps
	for _, s := range info.sections {
		if !libbpfGlobalDataSection(s) {
			continue
		}
		index++
		if !isPercpuSection(s.Name) {
			continue
		}
		standIn := percpuStandIn + strings.TrimPrefix(s.Name, percpuSection)
		if taken[standIn] {
			continue
		}
		var ok bool
		if out, ok = info.renameSection(out, s, standIn); ok {
			taken[standIn] = true
			if renamed == nil {
				renamed = percpuMaps{}
			}
			renamed[standIn] = percpuMap{name: s.Name, index: index - 1}
		}
	}
	if renamed == nil {
		return data, nil
	}
	return out, renamed
}

// unbindPercpuLoads does what libbpf 1.8 does to the programs of an
// object with per-CPU data on a kernel without it: every load of a per-CPU
// data map's address names no map, and the maps and their variables leave
// the spec. It returns a warning per map.
func unbindPercpuLoads(spec *ebpf.CollectionSpec, renamed percpuMaps) []string {
	if len(renamed) == 0 {
		return nil
	}
	for _, ps := range spec.Programs {
		if ps == nil {
			continue
		}
		for i := range ps.Instructions {
			ins := &ps.Instructions[i]
			if _, ok := renamed[ins.Reference()]; ok && ins.OpCode.IsDWordLoad() {
				// Keep the value offset (the upper half); the
				// descriptor is 0, as cilium/ebpf leaves a load no
				// relocation binds.
				*ins = ins.WithReference("")
				ins.Constant = int64(uint64(ins.Constant) &^ 0xffffffff)
			}
		}
	}
	warnings := make([]string, 0, len(renamed))
	for standIn, m := range renamed {
		delete(spec.Maps, standIn)
		for name, v := range spec.Variables {
			if v.SectionName == standIn {
				delete(spec.Variables, name)
			}
		}
		warnings = append(warnings, fmt.Sprintf("map %s (per-CPU global data, map #%d of the object): not created, as libbpf 1.8 does not create it where the kernel has no direct value access to per-CPU arrays; a program that loads its address names libbpf's placeholder descriptor, and the kernel refuses it before verifying it", m.name, m.index))
	}
	slices.Sort(warnings)
	return warnings
}
