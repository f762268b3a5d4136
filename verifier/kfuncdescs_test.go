package verifier

import (
	"strings"
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// kernelFuncIDs returns the vmlinux BTF ids of n kernel functions the
// running kernel has an address for, skipping the test without them.
func kernelFuncIDs(t *testing.T, n int) []int64 {
	t.Helper()
	spec, err := vmlinux()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	var ids []int64
	for typ, err := range spec.All() {
		if err != nil {
			t.Fatal(err)
		}
		fn, ok := typ.(*btf.Func)
		if !ok || !strings.HasPrefix(fn.Name, "bpf_") {
			continue
		}
		if _, ok, err := kernelSymbol(fn.Name); err != nil || !ok {
			continue
		}
		id, err := spec.TypeID(fn)
		if err != nil {
			t.Fatal(err)
		}
		if ids = append(ids, int64(id)); len(ids) == n {
			return ids
		}
	}
	t.Skipf("fewer than %d kernel functions with an address", n)
	return nil
}

// TestKfuncDescLimit: a program may call at most 256 distinct kernel
// functions (MAX_KFUNC_DESCS); add_kfunc_call refuses the 257th distinct
// one at load (E2BIG), reached or not, and counts a function called again
// once. Checked against the running kernel where it can load programs.
func TestKfuncDescLimit(t *testing.T) {
	ids := kernelFuncIDs(t, maxKfuncDescs+1)
	prog := func(calls []int64) *loader.Program {
		insns := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
		for _, id := range calls {
			insns = append(insns, kfuncCall(id))
		}
		return &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
	}
	const limit = "too many different kernel function calls"
	tests := []struct {
		name    string
		calls   []int64
		refused bool
	}{
		{"257 distinct", ids, true},
		{"256 distinct, one twice", append(ids[:maxKfuncDescs:maxKfuncDescs], ids[0]), false},
	}
	live := kernel.Available() == nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := prog(tt.calls)
			got := verifyInsns(t, p)
			if refused := got.Msg == limit; refused != tt.refused {
				t.Errorf("vercheck: %s %q, want the limit %v", got.Verdict, got.Msg, tt.refused)
			}
			if tt.refused {
				if errno := Verify(&loader.Object{Path: "test"}, p, Options{}).Errno(); errno != syscall.E2BIG {
					t.Errorf("errno %v, want E2BIG", errno)
				}
			}
			if !live {
				return
			}
			k := kernel.Options{}.LoadProgram(&loader.Object{Path: "test"}, p)
			if k.NotLoaded {
				t.Skipf("kernel gave no verdict: %s", k.Err)
			}
			if refused := k.Err == limit; refused != tt.refused {
				t.Errorf("kernel: accepted %v: %q, want the limit %v", k.Accepted, k.Err, tt.refused)
			}
		})
	}
}
