package verifier

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestKsymTyping checks the typed ksyms of testdata/progs/pc_ksym.c with a
// kallsyms that knows their symbols: the kernel these programs were
// checked on lacks CONFIG_KALLSYMS_ALL and refuses them all at their first
// ksym, so these verdicts follow the 6.18 source (check_pseudo_btf_id,
// the per-CPU pointer helpers) and the selftests test_ksyms_btf*.c.
func TestKsymTyping(t *testing.T) {
	if _, err := vmlinux(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	saved := kernelSymbol
	kernelSymbol = func(name string) (uint64, bool, error) {
		addr, ok := map[string]uint64{"runqueues": 1, "bpf_prog_active": 2}[name]
		return addr, ok, nil
	}
	t.Cleanup(func() { kernelSymbol = saved })
	obj, err := loader.Open("../testdata/progs/pc_ksym.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pc_ksym_this_cpu":          "",
		"pc_ksym_per_cpu_checked":   "",
		"pc_ksym_per_cpu_unchecked": "R0 invalid mem access 'ptr_or_null_'",
		"pc_ksym_write":             "R0 cannot write into rdonly_mem",
		"pc_ksym_direct":            "R1 is ptr_rq access percpu memory: off=",
		"pc_ksym_moved":             "dereference of modified percpu_ptr_ ptr R1 off=8 disallowed",
	}
	got := map[string]string{}
	for _, p := range obj.Programs {
		res := Verify(obj, p, Options{})
		got[p.Name] = ""
		if res.Err != nil {
			got[p.Name] = res.Err.Error()
		}
	}
	for name, msg := range want {
		if msg == "" && got[name] != "" || !strings.Contains(got[name], msg) {
			t.Errorf("%s: got %q, want %q", name, got[name], msg)
		}
	}
	if diff := cmp.Diff(len(want), len(got)); diff != "" {
		t.Errorf("programs (-want +got):\n%s", diff)
	}
}

// TestExternIncompatible checks testdata/progs/s38_extern_incompatible.c:
// a strong kfunc and a typed ksym the running kernel has with another type
// than the object declares are the loader's refusal with libbpf's errno
// (EINVAL), not a gap in vercheck's model.
func TestExternIncompatible(t *testing.T) {
	got := map[string]string{}
	for name, re := range loaderRejections(t, "../testdata/progs/s38_extern_incompatible.o") {
		if !strings.Contains(re.Msg, loader.ErrExternIncompatible.Error()) {
			t.Errorf("%s: %q, want the loader's incompatible extern", name, re.Msg)
		}
		got[name] = re.errno.Error()
	}
	want := map[string]string{
		"s38_kfunc_incompatible": "invalid argument",
		"s38_ksym_incompatible":  "invalid argument",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errnos (-want +got):\n%s", diff)
	}
}
