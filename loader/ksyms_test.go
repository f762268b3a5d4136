package loader

import (
	"path/filepath"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

// TestTypedKsyms opens an object declaring typed ksyms, which cilium/ebpf
// alone refuses, and checks that every load of their address is linked as
// libbpf links it: BPF_PSEUDO_BTF_ID with the variable's vmlinux id, both
// by Open and by LoadCollectionSpec.
func TestTypedKsyms(t *testing.T) {
	kernel, err := KernelBTF()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	want := map[string]int64{}
	for _, name := range []string{"runqueues", "bpf_prog_active"} {
		var v *btf.Var
		if err := kernel.TypeByName(name, &v); err != nil {
			t.Skipf("kernel BTF has no %s: %v", name, err)
		}
		id, err := kernel.TypeID(v)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = int64(id)
	}
	path := filepath.Join(progsDir, "pc_ksym.o")
	loads := func(insns asm.Instructions) map[string]int64 {
		got := map[string]int64{}
		for _, ins := range insns {
			if ins.OpCode.IsDWordLoad() && ins.Src == pseudoBTFID {
				got[btfVarName(kernel, ins.Constant)] = ins.Constant
			}
		}
		return got
	}
	obj, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := LoadCollectionSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range obj.Programs {
		if p.Name != "pc_ksym_this_cpu" {
			continue
		}
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		if diff := cmp.Diff(want, loads(p.Instructions)); diff != "" {
			t.Errorf("Open: ksym loads (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(want, loads(spec.Programs[p.Name].Instructions)); diff != "" {
			t.Errorf("LoadCollectionSpec: ksym loads (-want +got):\n%s", diff)
		}
	}
}

// btfVarName is the name of vmlinux type id.
func btfVarName(kernel *btf.Spec, id int64) string {
	t, err := kernel.TypeByID(btf.TypeID(id))
	if err != nil {
		return ""
	}
	return t.TypeName()
}

// TestTypelessKsyms checks that a load of a typeless ksym's address gets
// the symbol's kallsyms address, and 0 for a weak symbol the kernel lacks.
func TestTypelessKsyms(t *testing.T) {
	mapPut, _, err := KernelSymbol("bpf_map_put")
	if err != nil {
		t.Skipf("no kallsyms: %v", err)
	}
	if mapPut == 0 {
		t.Skip("kallsyms hides bpf_map_put's address")
	}
	obj, err := Open(filepath.Join(progsDir, "pc_ksym_typeless.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int64{
		"pc_ksym_typeless_present": {int64(mapPut)},
		"pc_ksym_typeless_missing": {0},
	}
	got := map[string][]int64{}
	for _, p := range obj.Programs {
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		for _, ins := range p.Instructions {
			if ins.OpCode.IsDWordLoad() {
				got[p.Name] = append(got[p.Name], ins.Constant)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("address loads (-want +got):\n%s", diff)
	}
}

func TestEssentialName(t *testing.T) {
	tests := map[string]string{
		"scx_bpf_dsq_insert":               "scx_bpf_dsq_insert",
		"scx_bpf_dsq_insert___v1":          "scx_bpf_dsq_insert",
		"scx_bpf_dsq_insert___v2___compat": "scx_bpf_dsq_insert___v2",
		"bpf_foo____x":                     "bpf_foo____x",
		"___x":                             "___x",
		"a___":                             "a___",
	}
	for in, want := range tests {
		if got := EssentialName(in); got != want {
			t.Errorf("EssentialName(%q) = %q, want %q", in, got, want)
		}
	}
}
