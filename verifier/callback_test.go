package verifier_test

import (
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
				res := verifier.Verify(obj, p, verifier.Options{})
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
