package verifier_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestCorpusGlobalsAndCallbacks checks, against the Linux 6.18 figures in
// the shared corpus's kernel-6.18.csv, programs with global functions and
// synchronous callbacks. It skips when the corpus is not there.
func TestCorpusGlobalsAndCallbacks(t *testing.T) {
	const corpus = "../../shared/corpus"
	type figures struct {
		Verdict       string
		Msg           string
		InsnProcessed int
		TotalStates   int
		PeakStates    int
		StackDepth    []int
	}
	tests := []struct {
		object, program string
		want            figures
	}{
		{"cilium-ebpf-testdata/subprog_reloc-el.elf", "fp_relocation", figures{"accepted", "", 40, 3, 3, []int{16, 16}}},
		{"cilium-ebpf-testdata/loader-clang-22-el.elf", "xdp_prog", figures{"accepted", "", 47, 5, 5, []int{0, 0, 0, 0, 0}}},
		{"cilium-ebpf-testdata/linked-el.elf", "entry_l2", figures{"accepted", "", 4, 0, 0, []int{0, 0}}},
		{"cilium-ebpf-testdata/freplace-el.elf", "sched_process_exec", figures{"accepted", "", 6, 0, 0, []int{0, 8}}},
		{"ebpf-samples/build/bpf2bpf.o", "func", figures{"rejected", "R1 invalid mem access 'mem_or_null'", 50, 4, 4, []int{88, 72, 72}}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.object)+"/"+tt.program, func(t *testing.T) {
			path := filepath.Join(corpus, tt.object)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("corpus object not available: %v", err)
			}
			obj, err := loader.Open(path, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range obj.Programs {
				if p.Name != tt.program {
					continue
				}
				res := verifier.Verify(obj, p, verifier.Options{MissingFixes: corpusKernelMissing})
				got := figures{Verdict: res.Verdict(), InsnProcessed: res.Stats.InsnProcessed,
					TotalStates: res.Stats.TotalStates, PeakStates: res.Stats.PeakStates, StackDepth: res.Stats.StackDepth}
				if res.Err != nil {
					got.Msg = res.Err.Error()
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("figures mismatch (-want +got):\n%s", diff)
				}
				return
			}
			t.Fatalf("program %s not found", tt.program)
		})
	}
}

// TestLoopCountPointer: bpf_loop's count is ARG_ANYTHING, but the kernel
// marks it precise and its backtracking refuses a pointer there (a
// verifier_bug, EFAULT, after a kernel warning: ErrKernelFault, never loaded). The program is callback.o's cb_loop_stop without
// the load of its count, so r1 still holds the context (the case the
// mutation fuzzer found).
func TestLoopCountPointer(t *testing.T) {
	obj, err := loader.Open("../testdata/progs/callback.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range obj.Programs {
		if p.Name != "cb_loop_stop" {
			continue
		}
		kept := p.Instructions[:0:0]
		removed := false
		for _, ins := range p.Instructions {
			// r1 = *(u32 *)(r1 + len): the count, dropped once.
			if !removed && ins.Dst == 1 && ins.Src == 1 && ins.OpCode.Class().IsLoad() && !ins.OpCode.IsDWordLoad() {
				removed = true
				continue
			}
			kept = append(kept, ins)
		}
		if !removed {
			t.Fatal("cb_loop_stop has no load of its count from the context")
		}
		res := verifier.Verify(obj, p.WithInstructions(kept), verifier.Options{})
		if !errors.Is(res.Err, verifier.ErrKernelFault) {
			t.Errorf("got %v, want the kernel's backtracking misuse refused as %v", res.Err, verifier.ErrKernelFault)
		}
		return
	}
	t.Fatal("cb_loop_stop not found")
}

func errMsg(r *verifier.Result) string {
	if r.Err == nil {
		return ""
	}
	return r.Err.Error()
}
