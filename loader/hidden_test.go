package loader

import (
	"testing"

	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

// TestHiddenFuncsStatic reads hidden global functions as libbpf hands them
// to the kernel: static in the BTF function info of every program that
// calls them, while a global function of default visibility stays global.
func TestHiddenFuncsStatic(t *testing.T) {
	spec, _, err := LoadCollectionSpec("../testdata/progs/p9_hidden_global.o")
	if err != nil {
		t.Fatalf("LoadCollectionSpec: %v", err)
	}
	got := map[string]btf.FuncLinkage{}
	for _, ps := range spec.Programs {
		for i := range ps.Instructions {
			if fn := btf.FuncMetadata(&ps.Instructions[i]); fn != nil && fn.Name != ps.Name {
				got[fn.Name] = fn.Linkage
			}
		}
	}
	want := map[string]btf.FuncLinkage{
		"hg_deref":     btf.StaticFunc,
		"hg_read_long": btf.StaticFunc,
		"hg_len":       btf.StaticFunc,
		"hg_store":     btf.StaticFunc,
		"dg_deref":     btf.GlobalFunc,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("linkage of called functions (-want +got):\n%s", diff)
	}
}
