package verifier_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestGraphLoaderModels verifies the programs of testdata/graph/gr_maps.o
// (graph roots in a global and in a map value, a local kptr moved out
// of a map and into one) under each loader model of the maps' BTF. The
// cilium/ebpf figures are the running kernel's through cilium/ebpf
// (vercheck --kernel --map-btf cilium), where it could load the program;
// libbpf's are those of the selftests' like programs (linked_list.c,
// local_kptr_stash.c), which libbpf loads, and of vercheck --kernel; the
// default model is libbpf's.
func TestGraphLoaderModels(t *testing.T) {
	obj, err := loader.Open("testdata/graph/gr_maps.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const unsupported = "unsupported"
	// The compiler merges gr_map_kptr_push's drops of a gr_mnode and a
	// gr_mhead into one call (stablefix.KfuncOneType; live: rejected).
	const nomerge = "or mark the callee with __attribute__((nomerge))"
	tests := []struct {
		model verifier.MapBTF
		want  map[string]string // program: "" accepted, a rejection message, or unsupported
	}{
		{verifier.MapBTFDefault, map[string]string{
			"gr_map_global_push":      "",
			"gr_map_struct_push":      "",
			"gr_map_kptr_push":        nomerge,
			"gr_map_kptr_stash":       "",
			"gr_map_kptr_rcu_acquire": "",
		}},
		{verifier.MapBTFObject, map[string]string{
			"gr_map_global_push":      "",
			"gr_map_struct_push":      "",
			"gr_map_kptr_push":        nomerge,
			"gr_map_kptr_stash":       "",
			"gr_map_kptr_rcu_acquire": "",
		}},
		{verifier.MapBTFKeyValue, map[string]string{
			"gr_map_global_push":      "map '.bss.A' has no valid bpf_spin_lock",
			"gr_map_struct_push":      unsupported,
			"gr_map_kptr_push":        "operation on bpf_list_head expects arg#1 bpf_list_node at offset=8 in struct gr_mnode, but arg is at offset=8 in struct gr_mnode",
			"gr_map_kptr_stash":       "invalid kptr access, R2 type=ptr_gr_mnode expected=ptr_gr_mnode",
			"gr_map_kptr_rcu_acquire": "",
		}},
	}
	for _, tt := range tests {
		got := map[string]string{}
		for _, p := range obj.Programs {
			res := verifier.Verify(obj, p, verifier.Options{MapBTF: tt.model})
			msg := errMsg(res)
			if strings.HasPrefix(msg, unsupported) {
				msg = unsupported
			}
			got[p.Name] = msg
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("map BTF model %d: verdicts (-want +got):\n%s", tt.model, diff)
		}
	}
}
