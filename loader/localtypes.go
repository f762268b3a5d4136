package loader

import (
	"maps"
	"slices"

	"github.com/cilium/ebpf/btf"
)

// LocalTypeID is the id, in the object's own BTF, of the type a
// bpf_core_type_id_local relocation names; false for other relocations.
func LocalTypeID(relo *btf.CORERelocation) (btf.TypeID, bool) {
	r, ok := parseCORERelo(relo)
	return r.localID, ok && r.kind == coreTypeIDLocal
}

// WithObjectTypeIDs returns p as libbpf loads it: libbpf loads the
// object's whole BTF as it is and relocates a bpf_core_type_id_local to
// the type's id there, where the loader numbers the types as cilium/ebpf
// does, in a BTF of the program's own. The copy's instructions and
// LocalTypes hold the object's ids; p is returned as it is when it has no
// such relocation.
func (p *Program) WithObjectTypeIDs() *Program {
	if len(p.LocalTypes) == 0 {
		return p
	}
	insns := slices.Clone(p.Instructions)
	local := make(map[uint32]btf.Type, len(p.LocalTypes))
	for i := range insns {
		relo := btf.CORERelocationMetadata(&insns[i])
		if relo == nil {
			continue
		}
		t, known := p.LocalTypes[uint32(insns[i].Constant)]
		id, ok := LocalTypeID(relo)
		if !known || !ok {
			continue
		}
		insns[i].Constant = int64(id)
		local[uint32(id)] = t
	}
	cp := *p
	cp.Instructions = insns
	cp.LocalTypes = local
	if maps.Equal(local, p.LocalTypes) {
		return p
	}
	return &cp
}
