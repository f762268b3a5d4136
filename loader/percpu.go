package loader

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
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
// length, as it reads named .bss sections (bss.go: ".percpu" becomes
// ".datapc", ".percpu.x" ".datapc.x", and the map gets its name back),
// then leaves the loads of its map bound to no map (Program.UnboundMapLoads,
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

// unbindPercpuLoads does what libbpf 1.8 does to the programs of an
// object with per-CPU data on a kernel without it: every load of a per-CPU
// data map's address names no map, and the maps and their variables leave
// the spec. It returns a warning per map.
func unbindPercpuLoads(spec *ebpf.CollectionSpec) []string {
	var maps []string
	for name := range spec.Maps {
		if isPercpuSection(name) {
			maps = append(maps, name)
		}
	}
	if len(maps) == 0 {
		return nil
	}
	for _, ps := range spec.Programs {
		if ps == nil {
			continue
		}
		for i := range ps.Instructions {
			ins := &ps.Instructions[i]
			if isPercpuSection(ins.Reference()) && ins.OpCode.IsDWordLoad() {
				// Keep the value offset (the upper half); the
				// descriptor is 0, as cilium/ebpf leaves a load no
				// relocation binds.
				*ins = ins.WithReference("")
				ins.Constant = int64(uint64(ins.Constant) &^ 0xffffffff)
			}
		}
	}
	slices.Sort(maps)
	warnings := make([]string, 0, len(maps))
	for _, name := range maps {
		dropDataMap(spec, name)
		warnings = append(warnings, fmt.Sprintf("map %s (per-CPU global data): not created, as libbpf 1.8 does not create it where the kernel has no direct value access to per-CPU arrays; a program that loads its address names libbpf's placeholder descriptor, and the kernel refuses it before verifying it", name))
	}
	return warnings
}

// dropDataMap removes the map cilium/ebpf made of data section name and
// the variables that live in it.
func dropDataMap(spec *ebpf.CollectionSpec, name string) {
	delete(spec.Maps, name)
	for v, vs := range spec.Variables {
		if vs.SectionName == name {
			delete(spec.Variables, v)
		}
	}
}
