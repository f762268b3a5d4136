package gen_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/gen"
)

// TestGenerateDeterministic: a seed always gives the same program.
func TestGenerateDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		a, err := gen.Generate(seed, gen.Config{Mistakes: 0.05})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		b, err := gen.Generate(seed, gen.Config{Mistakes: 0.05})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if diff := cmp.Diff(insn.Encode(a.Insns), insn.Encode(b.Insns)); diff != "" {
			t.Errorf("seed %d mismatch (-first +second):\n%s", seed, diff)
		}
	}
}

// TestGenerateWellFormed: every program passes the kernel's structural
// checks (jumps in range, no fall-off, known opcodes) and ends in exit.
func TestGenerateWellFormed(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		p, err := gen.Generate(seed, gen.Config{Mistakes: 0.05})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, err := insn.Analyze(p.Insns); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		last := p.Insns[len(p.Insns)-1]
		if got, want := last.Op, insn.ClassJMP|insn.JmpExit; got != want {
			t.Errorf("seed %d: last opcode %#x, want exit %#x", seed, got, want)
		}
	}
}
