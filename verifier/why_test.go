package verifier_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/progtest"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
	"github.com/vercheck/vercheck/why"
)

// verifyWhy verifies program name of the object at path with Options.Why,
// for a kernel that lacks the stable fixes missing names.
func verifyWhy(t *testing.T, path, name string, missing stablefix.Set) *verifier.Result {
	t.Helper()
	obj, err := loader.Open(path, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := obj.Program(name)
	if p == nil {
		t.Fatalf("program %s not in %s", name, path)
	}
	return verifier.Verify(obj, p, verifier.Options{Why: true, MissingFixes: missing})
}

// TestWhyOrigins checks, on a representative set of rejections, the cause
// the slice finds and the instruction it names as the origin (-1: none,
// the value had its property since the path's entry).
func TestWhyOrigins(t *testing.T) {
	tests := []struct {
		object, program string
		cause           why.Cause
		origin          int
		register        string
		missing         stablefix.Set
	}{
		{"map_lookup_unchecked.o", "map_lookup_unchecked", why.NullUnchecked, 6, "R0", stablefix.Set{}},
		{"ctxp_checks.o", "ctxp_ringbuf_output_maybe_null", why.NullUnchecked, 6, "R2", stablefix.Set{}},
		{"btfprog_iter.o", "btfprog_iter_task_unchecked", why.NullUnchecked, 0, "R2", stablefix.Set{}},
		{"dynptr.o", "dynptr_slice_after_submit", why.ReferenceReleased, 17, "R6", stablefix.Set{}},
		{"iter.o", "iter_num_use_after_destroy", why.ReferenceReleased, 12, "R6", stablefix.Set{}},
		{"ptr_neg_swap.o", "", why.PointerLost, 9, "R6", stablefix.Set{}},
		{"btfprog_structops.o", "btfprog_ops_set_state", why.ScalarAsPointer, 0, "R2", stablefix.Set{}},
		{"xdp_no_bounds.o", "xdp_no_bounds", why.PacketUnchecked, 0, "R1", stablefix.Set{}},
		{"ctxp_reuseport.o", "ctxp_reuseport_packet_write", why.Static, -1, "R1", stablefix.Set{}},
		{"pktrange_regsafe.o", "beyond_covers_at_end", why.PacketRangeShort, 11, "R8", stablefix.Set{}},
		{"cgroup_skb_ret.o", "cgroup_skb_ret", why.OutOfRange, 0, "R0", stablefix.Set{}},
		{"ctxp_netfilter.o", "ctxp_nf_past_end", why.ContextField, -1, "R1", stablefix.Set{}},
		{"ctxp_rawtp_w.o", "ctxp_rawtp_w_negative", why.PointerOffset, 1, "R2", stablefix.Set{}},
		{"exit_no_r0.o", "exit_no_r0", why.UninitRegister, -1, "R0", stablefix.Set{}},
		{"iter.o", "iter_num_clobbered", why.StackObject, 5, "fp-8", stablefix.Set{}},
		{"dynptr.o", "dynptr_uninit_read", why.UninitStack, -1, "fp-32", stablefix.Set{}},
		{"spinlock.o", "spin_lock_call_helper", why.LockHeld, 12, "", stablefix.Set{}},
		{"fr_varoff_stack.o", "fr_varoff_over_iter", why.StackObject, 4, "fp-8", stablefix.Set{}},
		// A kernel that scrubs the slot loses the iterator, not its
		// reference.
		{"fr_varoff_stack.o", "fr_varoff_over_iter", why.UnreleasedReference, 4, "", stablefix.Of(stablefix.VarWriteKeepsSpill)},
		{"infinite_loop.o", "infinite_loop", why.InfiniteLoop, 1, "", stablefix.Set{}},
		{"find_vma.o", "task_storage_scalar_task", why.ScalarAsPointer, 0, "R2", stablefix.Set{}},
		{"ctxp_gpl.o", "ctxp_gpl_func_ip_kprobe", why.Static, -1, "", stablefix.Set{}},
	}
	for _, tt := range tests {
		name := tt.program
		if name == "" {
			name = firstRejected(t, "../testdata/progs/"+tt.object)
		}
		t.Run(name, func(t *testing.T) {
			res := verifyWhy(t, "../testdata/progs/"+tt.object, name, tt.missing)
			x := res.Why
			if x == nil {
				t.Fatalf("no explanation (verdict %s, %v)", res.Verdict(), res.Err)
			}
			origin := -1
			if x.Origin != nil {
				origin = x.Origin.Insn
			}
			type got struct {
				Cause    why.Cause
				Origin   int
				Register string
			}
			if diff := cmp.Diff(got{tt.cause, tt.origin, tt.register}, got{x.Cause, origin, x.Register}); diff != "" {
				t.Errorf("explanation differs (-want +got):\n%s\nsummary: %s", diff, x.Summary)
			}
		})
	}
}

// firstRejected names the first program of an object that the
// expectations say the kernel rejects.
func firstRejected(t *testing.T, path string) string {
	t.Helper()
	cases, err := progtest.Cases("../testdata/progs")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.ObjectPath == path && !c.On(stablefix.Set{}).Accept {
			return c.Program
		}
	}
	t.Fatalf("no rejection in %s", path)
	return ""
}

// TestWhyEveryRejection explains every rejection of testdata/progs: each
// gets a cause the slice found, with its origin or what the value held
// since the path's entry, or says why there is no slice; every one has a
// hint. Explaining never changes the verdict or the figures.
func TestWhyEveryRejection(t *testing.T) {
	cases, err := progtest.Cases("../testdata/progs")
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]*loader.Object{}
	counts := map[why.Cause]int{}
	for _, c := range cases {
		if c.On(stablefix.Set{}).Accept {
			continue
		}
		obj, ok := objs[c.ObjectPath]
		if !ok {
			if obj, err = loader.Open(c.ObjectPath, loader.Options{}); err != nil {
				t.Fatal(err)
			}
			objs[c.ObjectPath] = obj
		}
		for _, p := range obj.Programs {
			if p.Name != c.Program {
				continue
			}
			plain := verifier.Verify(obj, p, verifier.Options{})
			res := verifier.Verify(obj, p, verifier.Options{Why: true})
			if res.Accepted || res.Verdict() == "unsupported" {
				continue
			}
			if plain.Stats.InsnProcessed != res.Stats.InsnProcessed || plain.Err.Error() != res.Err.Error() {
				t.Errorf("%s: --why changed the verification: %v (%d insns) vs %v (%d insns)", c.Program, plain.Err, plain.Stats.InsnProcessed, res.Err, res.Stats.InsnProcessed)
			}
			x := res.Why
			switch {
			case x == nil:
				t.Errorf("%s: no explanation", c.Program)
				continue
			case x.Cause == "":
				t.Errorf("%s: no cause", c.Program)
			case x.NoSlice == "" && len(x.Slice) == 0:
				t.Errorf("%s: cause %s without a slice or a reason for none", c.Program, x.Cause)
			case x.NoSlice != "" && x.Origin != nil:
				t.Errorf("%s: both an origin and no slice (%s)", c.Program, x.NoSlice)
			case x.Hint == "" || x.Summary == "":
				t.Errorf("%s: no hint or summary", c.Program)
			}
			counts[x.Cause]++
		}
	}
	t.Logf("causes: %v", counts)
}

// TestGlobalFuncLogStartsAtFunc checks that the -v log of a failing
// global function starts at the function, not in the caller's last path.
func TestGlobalFuncLogStartsAtFunc(t *testing.T) {
	obj, err := loader.Open("../testdata/progs/global_func.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range obj.Programs {
		if p.Name != "global_ptr_unchecked" {
			continue
		}
		res := verifier.Verify(obj, p, verifier.Options{LogLevel: 1})
		if res.Accepted || !strings.HasPrefix(res.Log, "Validating gf_ptr_unchecked() func#1...\n") {
			t.Errorf("log of the failing global function starts elsewhere:\n%s", res.Log)
		}
		return
	}
	t.Fatal("global_ptr_unchecked not found")
}
