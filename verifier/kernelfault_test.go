package verifier

import (
	"errors"
	"testing"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// TestKernelFault: programs the running kernel's verifier oopses or
// WARNs on are unsupported with ErrKernelFault, which the kernel
// comparisons (the fuzzer's oracle, vercheck --kernel) read as "do not
// load". The objects are only ever verified by vercheck: loading them
// faults or taints the 6.18 kernel.
func TestKernelFault(t *testing.T) {
	// faultsWithout names the programs only kernels lacking some fixes
	// fault on: with stablefix.CallbackLoopSCC a bpf_loop call is an SCC,
	// so a may_goto loop met again in the next run of the callback has a
	// visit to add its back-edge to, and the callback's states stay
	// alive while back-edges point into them.
	faultsWithout := map[string]stablefix.Set{
		"vb_maygoto_cb":   stablefix.Of(stablefix.CallbackLoopSCC),
		"bt_freed_parent": stablefix.Of(stablefix.CallbackLoopSCC),
	}
	if _, err := vmlinux(); err != nil {
		t.Skipf("kernel BTF: %v", err)
	}
	for _, path := range []string{"testdata/kernelfault/wq_oops.o", "testdata/kernelfault/tw_oops.o", "testdata/kernelfault/scc_throw.o", "testdata/kernelfault/vb_xchg_null.o", "testdata/kernelfault/vb_maygoto_cb.o", "testdata/kernelfault/dead_callback.o", "testdata/kernelfault/kptr_after_unlock.o", "testdata/kernelfault/bt_freed_parent.o", "testdata/kernelfault/async_cb_backtrack.o", "testdata/kernelfault/maygoto_first_call.o", "testdata/kernelfault/dynptr_stale_ref.o", "testdata/kernelfault/refcount_no_record.o", "testdata/kernelfault/xchg_rcu_obj.o", "testdata/kernelfault/throw_dead_callback.o", "testdata/kernelfault/flex_empty.o", "testdata/kernelfault/ld_abs_callback.o"} {
		obj, err := loader.Open(path, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, prog := range obj.Programs {
			res := Verify(obj, prog, Options{MissingFixes: faultsWithout[prog.Name]})
			if !errors.Is(res.Err, ErrKernelFault) || !errors.Is(res.Err, ErrUnsupported) {
				t.Errorf("%s: Verify = %v, want ErrKernelFault (and so ErrUnsupported)", prog.Name, res.Err)
			}
			if !faultsWithout[prog.Name].Empty() {
				if res := Verify(obj, prog, Options{}); errors.Is(res.Err, ErrKernelFault) {
					t.Errorf("%s: a fault with every fix applied too: %v", prog.Name, res.Err)
				}
			}
		}
	}
}
