package loader

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// LocalTypeID is the id, in the object's own BTF, of the type a
// bpf_core_type_id_local relocation names; false for other relocations.
func LocalTypeID(relo *btf.CORERelocation) (btf.TypeID, bool) {
	kind, id, ok := typeIDRelocation(relo)
	return id, ok && kind == "local_type_id"
}

// typeIDRelocation returns the kind and the local type id of a relocation
// that makes a type id an immediate (bpf_core_type_id_local or
// bpf_core_type_id_kernel); false for other relocations.
func typeIDRelocation(relo *btf.CORERelocation) (kind string, id btf.TypeID, ok bool) {
	// cilium/ebpf keeps the kind and the local id to itself but for the
	// relocation's description: "... (local_type_id, local_id=N)".
	desc := relo.String()
	open, comma := strings.IndexByte(desc, '('), strings.IndexByte(desc, ',')
	if open < 0 || comma < open {
		return "", 0, false
	}
	kind = desc[open+1 : comma]
	at := strings.LastIndex(desc, "local_id=")
	if kind != "local_type_id" && kind != "target_type_id" || at < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(desc[at+len("local_id="):], ")"), 10, 32)
	if err != nil {
		return "", 0, false
	}
	return kind, btf.TypeID(n), true
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
