package soundness_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/soundness"
)

// TestMinimise keeps only the instructions the predicate needs and fixes
// the jump offsets around the removed ones.
func TestMinimise(t *testing.T) {
	mov := func(dst uint8, imm int32) insn.Insn {
		return insn.Insn{Op: insn.ClassALU64 | insn.ALUMov, Dst: dst, Imm: imm}
	}
	ja := func(off int16) insn.Insn { return insn.Insn{Op: insn.ClassJMP | insn.JmpJA, Off: off} }
	exit := insn.Insn{Op: insn.ClassJMP | insn.JmpExit}
	code := []insn.Insn{mov(1, 1), ja(2), mov(2, 2), mov(3, 3), mov(0, 7), exit}
	// The "bug" needs r0 = 7 and the jump.
	keep := func(c []insn.Insn) bool {
		hasMov, hasJmp := false, false
		for _, in := range c {
			hasMov = hasMov || in == mov(0, 7)
			hasJmp = hasJmp || (in.Op == insn.ClassJMP|insn.JmpJA && in.Off != 0)
		}
		return hasMov && hasJmp
	}
	want := []insn.Insn{ja(0), mov(0, 7), exit}
	if diff := cmp.Diff(want, soundness.Minimise(code, keep)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
