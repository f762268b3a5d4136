package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFixupRemove checks verifier_remove_insns' bookkeeping: targets past
// the removed run move back, targets into it keep their index, a function
// wholly inside it is dropped, one whose head alone goes keeps its start.
func TestFixupRemove(t *testing.T) {
	tests := []struct {
		name        string
		n           int   // instructions
		starts      []int // function starts, without the end
		target      int   // a function address at insn 0
		off, cnt    int
		wantStarts  []int // with the end
		wantTarget  int
		wantRemains int
	}{
		{"a whole function at the end", 10, []int{0, 6, 8}, 8, 8, 2, []int{0, 6, 8}, 8, 8},
		{"a whole function before another", 10, []int{0, 6, 8}, 6, 6, 2, []int{0, 6, 8}, 6, 8},
		{"a dead tail and the next function", 10, []int{0, 6, 8}, 6, 4, 4, []int{0, 4, 6}, 6, 6},
		{"the head of a function", 10, []int{0, 6}, 6, 6, 1, []int{0, 6, 9}, 6, 9},
		{"code before a target", 10, []int{0, 6}, 6, 2, 2, []int{0, 4, 8}, 4, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fixupProg{insns: make([]fixupInsn, tt.n), starts: append(append([]int(nil), tt.starts...), tt.n)}
			for i := range p.insns {
				p.insns[i] = fixupInsn{orig: i, target: -1}
			}
			p.insns[0].target = tt.target
			p.remove(tt.off, tt.cnt)
			if diff := cmp.Diff(tt.wantStarts, p.starts); diff != "" {
				t.Errorf("starts mismatch (-want +got):\n%s", diff)
			}
			if p.insns[0].target != tt.wantTarget || len(p.insns) != tt.wantRemains {
				t.Errorf("target %d, %d instructions; want %d, %d", p.insns[0].target, len(p.insns), tt.wantTarget, tt.wantRemains)
			}
		})
	}
}
