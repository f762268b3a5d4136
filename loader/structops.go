package loader

import (
	"bytes"
	"debug/elf"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// Legacy struct_ops sections. libbpf reads struct_ops maps from two
// sections: ".struct_ops.link" (attached through a BPF link) and the older
// ".struct_ops", which libbpf still loads and many congestion control
// programs use. cilium/ebpf reads only the first and refuses the whole
// object for the second. For verification the section matters only
// through the attach point it gives each program it names: the struct
// type and the member a function pointer fills (the program's
// attach_btf_id and expected_attach_type). The loader renames the legacy
// section, in the ELF section names and in the BTF string table that names
// its Datasec, to a stand-in of the same length that cilium/ebpf ignores,
// and afterwards gives each program the section's relocations name its
// "struct:member" attach target, as cilium/ebpf does for ".struct_ops.link".

const (
	// legacyStructOpsSection is libbpf's section of struct_ops maps
	// without BPF_F_LINK.
	legacyStructOpsSection = ".struct_ops"
	// legacyStructOpsStandIn replaces it while cilium/ebpf reads the
	// object: a name of the same length cilium/ebpf does not read, which
	// differs in the first byte alone, since the section header string
	// table shares the tail "struct_ops" with the sections of programs
	// declared SEC("struct_ops").
	legacyStructOpsStandIn = "_struct_ops"
)

// renameLegacyStructOps returns data with the legacy struct_ops section
// renamed to its stand-in, and whether it was; data itself is never
// modified.
func (info *elfInfo) renameLegacyStructOps(data []byte) ([]byte, bool) {
	for _, s := range info.sections {
		if s.Name != legacyStructOpsSection || s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR != 0 {
			continue
		}
		out, ok := info.renameSection(data, s, legacyStructOpsStandIn)
		return out, ok
	}
	return data, false
}

// renameSection returns a copy of data with section s named to instead,
// in the section header string table and in the BTF string table (where a
// Datasec carries the section's name). to has the length of s's name. ok
// is false, and data returned as it is, when the name is not where the
// headers say.
func (info *elfInfo) renameSection(data []byte, s *elf.SectionHeader, to string) ([]byte, bool) {
	pos, ok := info.sectionNameOffset(s, data)
	if !ok || len(to) != len(s.Name) || pos+len(s.Name) > len(data) || !bytes.Equal(data[pos:pos+len(s.Name)], []byte(s.Name)) {
		return data, false
	}
	out := slices.Clone(data)
	copy(out[pos:], to)
	info.renameBTFString(out, s.Name, to)
	return out, true
}

// attachLegacyStructOps gives every program that a function pointer of a
// struct in the (renamed) legacy struct_ops section names its attach
// target, "struct:member", as cilium/ebpf's structOpsSetAttachTo does for
// ".struct_ops.link". A relocation that names no struct_ops program is
// left alone: the kernel would refuse the map, not the program.
func (info *elfInfo) attachLegacyStructOps(spec *ebpf.CollectionSpec, data []byte) {
	var ds *btf.Datasec
	if spec.Types == nil || spec.Types.TypeByName(legacyStructOpsStandIn, &ds) != nil {
		return
	}
	targets := info.legacyStructOpsRelocations(data)
	for _, v := range ds.Vars {
		vr, ok := v.Type.(*btf.Var)
		if !ok {
			continue
		}
		st, ok := btf.UnderlyingType(vr.Type).(*btf.Struct)
		if !ok {
			continue
		}
		for _, m := range st.Members {
			name, ok := targets[uint64(v.Offset)+uint64(m.Offset.Bytes())]
			if !ok {
				continue
			}
			if ps := spec.Programs[name]; ps != nil && ps.Type == ebpf.StructOps {
				ps.AttachTo = st.Name + ":" + m.Name
			}
		}
	}
}

// legacyStructOpsRelocations returns the symbol each relocation of the
// stand-in section names, by offset in the section.
func (info *elfInfo) legacyStructOpsRelocations(data []byte) map[uint64]string {
	target := slices.IndexFunc(info.sections, func(s *elf.SectionHeader) bool {
		return s.Name == legacyStructOpsSection
	})
	out := make(map[uint64]string)
	for _, s := range info.sections {
		if int(s.Info) != target {
			continue
		}
		for _, r := range info.relocations(s, data) {
			out[r.off] = r.sym.name
		}
	}
	return out
}
