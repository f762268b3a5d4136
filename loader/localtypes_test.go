package loader

import (
	"testing"

	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

// TestWithObjectTypeIDs checks that libbpf's numbering gives each
// bpf_obj_new type its id in the object's BTF, in the instructions and in
// LocalTypes.
func TestWithObjectTypeIDs(t *testing.T) {
	obj, err := Open("../testdata/progs/g11_graph_maps.o", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range obj.Programs {
		if len(p.LocalTypes) == 0 {
			continue
		}
		lp := p.WithObjectTypeIDs()
		got, want := map[uint32]string{}, map[uint32]string{}
		for id, typ := range lp.LocalTypes {
			got[id] = typ.TypeName()
			oid, err := p.ObjectTypes.TypeID(typ)
			if err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			want[uint32(oid)] = typ.TypeName()
		}
		for i := range lp.Instructions {
			if relo := btf.CORERelocationMetadata(&lp.Instructions[i]); relo != nil {
				if _, ok := lp.LocalTypes[uint32(lp.Instructions[i].Constant)]; !ok {
					t.Errorf("%s: insn %d holds %d, no local type", p.Name, i, lp.Instructions[i].Constant)
				}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: local type ids (-object +got):\n%s", p.Name, diff)
		}
	}
}
