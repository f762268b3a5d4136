package mutate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// TestPastErrorEdits checks the follow-ups of each kind of rejected
// instruction.
func TestPastErrorEdits(t *testing.T) {
	withMsg := func(msg string) func([]insn.Insn, int) []edit {
		return func(p []insn.Insn, i int) []edit { return pastErrorEdits(p, i, msg) }
	}
	noMsg := withMsg("")
	load := ldx(insn.ModeMEM, insn.SizeW, 2, 1, 4)
	add := insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: 1, Src: 2}
	mayGoto := mayGotoInsn(1)
	checkEdits(t, []editCase{
		{"a load: a constant, offset 0", noMsg, prog(load, exit()), 0, []edit{
			rewrite(0, mov(2, 0)), rewrite(0, ldx(insn.ModeMEM, insn.SizeW, 2, 1, 0))}},
		{"a store: dropped, offset 0", noMsg, prog(stx(insn.SizeDW, 10, 1, -8), exit()), 0, []edit{
			rewrite(0, ja(0)), rewrite(0, stx(insn.SizeDW, 10, 1, 0))}},
		{"an ALU operation: dropped, a constant, its source clamped", noMsg, prog(add, exit()), 0, []edit{
			rewrite(0, ja(0)), rewrite(0, mov(1, 0)),
			insertion(0, insn.Insn{Op: insn.ClassALU | insn.ALUAnd, Dst: 2, Imm: 0xff})}},
		{"a conditional jump: a may_goto to its target", noMsg, prog(jeq(1, 0, 1), mov(0, 0), exit()), 0, []edit{
			rewrite(0, mayGoto)}},
		{"a helper call: r0 = 0", noMsg, prog(helper(1), exit()), 0, []edit{rewrite(0, mov(0, 0))}},
		{"no follow-up of a subprogram call", noMsg, prog(call(1), exit(), mov(0, 0), exit()), 0, nil},
		{"an exit: r0 = 0 before it", noMsg, prog(exit()), 0, []edit{insertion(0, mov(0, 0))}},
		{"an uninitialised read: the register set first", withMsg("R3 !read_ok"), prog(exit()), 0, []edit{
			insertion(0, mov(3, 0)), insertion(0, mov(0, 0))}},
		{"an ld_imm64: a constant and goto +0", noMsg, prog(ldImm64(1, 5, 0), exit()), 0, []edit{
			{at: 0, del: 2, repl: []insn.Insn{mov(1, 0), ja(0)}}}},
	})
}

// TestPastError checks that a follow-up is named by its operator and
// keeps the jumps around it.
func TestPastError(t *testing.T) {
	m := Identity(prog(jeq(1, 0, 1), exit(), mov(0, 0), exit()))
	got := PastError(m, 1, "R0 !read_ok")
	if len(got) != 2 {
		t.Fatalf("%d follow-ups, want 2", len(got))
	}
	want := prog(jeq(1, 0, 2), mov(0, 0), exit(), mov(0, 0), exit())
	if diff := cmp.Diff(want, got[0].Insns); diff != "" {
		t.Errorf("follow-up mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{PastErrorOperator}, got[0].Operators); diff != "" {
		t.Errorf("operators mismatch (-want +got):\n%s", diff)
	}
}
