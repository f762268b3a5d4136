package mutate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cilium/ebpf"
)

// TestAttachTargets: a tracing or LSM program with a target gets the
// seeds' targets of its kind and the well-known ones, its own left out
// and none twice; other programs, and one without a target, get none;
// a run naming the operator alone loads every mutant against one.
func TestAttachTargets(t *testing.T) {
	fentry := ProgType{Type: ebpf.Tracing, Attach: ebpf.AttachTraceFEntry}
	got := AttachTargets(fentry, "bpf_fentry_test1", []string{"bpf_fentry_test1", "my_func", "bpf_fentry_test2"})
	if slices.Contains(got, "bpf_fentry_test1") || !slices.Contains(got, "my_func") || !slices.Contains(got, "tcp_sendmsg") {
		t.Errorf("fentry targets %q", got)
	}
	for i, a := range got {
		if slices.Contains(got[i+1:], a) {
			t.Errorf("%s twice in %q", a, got)
		}
	}
	if got := AttachTargets(ProgType{Type: ebpf.XDP}, "x", nil); got != nil {
		t.Errorf("XDP targets %q", got)
	}
	if got := AttachTargets(fentry, "", []string{"f"}); got != nil {
		t.Errorf("targets of a program without one: %q", got)
	}
	code := prog(mov(0, 0), exit())
	env := Env{AttachTargets: []string{"a", "b"}, Operators: []string{AttachTargetOperator}}
	for s := range uint64(50) {
		m := Mutate(code, rand.New(rand.NewPCG(s, 9)), 1, env)
		if m.AttachTo != "a" && m.AttachTo != "b" || len(m.Changes) != 1 {
			t.Fatalf("stream %d: attached to %q, changes %q", s, m.AttachTo, m.Changes)
		}
	}
}
