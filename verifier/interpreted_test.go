package verifier_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestInterpretedBuild verifies programs this machine's kernel (JIT always
// on) accepts against the build facts of a kernel that runs programs in
// its interpreter: each is refused there for what only a JIT supports,
// with the 6.18 source's message, and the combined stack limit rounds
// frames to 32 bytes.
func TestInterpretedBuild(t *testing.T) {
	tests := []struct {
		obj, prog, want string
	}{
		{"stack_chain.o", "chain_stack_at_budget", "combined stack size of 3 calls is 544. Too large"},
		{"subprog_ret_int.o", "tail_call_in_int_subprog", "tail_calls are not allowed in non-JITed programs with bpf-to-bpf calls"},
		{"sw_preempt.o", "sw_preempt_nested", "JIT is required for calling kernel function"},
		{"ar_cast.o", "ar_cast_load_store", "JIT is required to use arena"},
		{"callback.o", "cb_loop_sum", "callbacks are not allowed in non-JITed programs"},
	}
	jit, interp := helpers.Build{}, helpers.Build{Interpreted: true}
	for _, tt := range tests {
		t.Run(tt.prog, func(t *testing.T) {
			obj, err := loader.Open("../testdata/progs/"+tt.obj, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prog := obj.Program(tt.prog)
			if prog == nil {
				t.Fatalf("no program %s", tt.prog)
			}
			if res := verifier.Verify(obj, prog, verifier.Options{Kernel: &jit}); !res.Accepted {
				t.Fatalf("JIT build: %v, want accepted", res.Err)
			}
			res := verifier.Verify(obj, prog, verifier.Options{Kernel: &interp})
			got := ""
			if res.Err != nil {
				got = res.Err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("interpreter build (-want +got):\n%s", diff)
			}
		})
	}
}
