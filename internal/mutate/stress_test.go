package mutate

import (
	"testing"

	"github.com/vercheck/vercheck/insn"
)

// TestStressOperators checks the first (or only) edits of the operators
// an outside author would write, and where they do not apply.
func TestStressOperators(t *testing.T) {
	access := prog(ldx(insn.ModeMEM, insn.SizeB, 0, 6, 0), exit())
	straight := prog(mov(1, 1), mov(2, 2), mov(3, 3), mov(4, 4), exit())
	first := firstEdit
	guard := func(p []insn.Insn, i int) []edit { return rangeGuard(Env{}, p, i)[:1] }
	checkEdits(t, []editCase{
		{"range guard before a use", guard, access, 0, []edit{insertion(0,
			insn.Insn{Op: insn.ClassJMP | insn.JmpJEQ, Dst: 0, Imm: -1 << 31, Off: 2}, mov(0, 0), exit())}},
		{"negation first", first(scalarEdgeALU), access, 0, []edit{insertion(0, insn.Insn{Op: insn.ClassALU64 | insn.ALUNeg, Dst: 0})}},
		{"partial spill: whole store, high half filled", first(partialSpill), prog(exit()), 0, []edit{insertion(0,
			stx(insn.SizeDW, insn.R10, 0, -512), ldx(insn.ModeMEM, insn.SizeW, 0, insn.R10, -510))}},
		{"variable stack offset before a call", first(varStackAccess), prog(helper(7), exit()), 0, []edit{insertion(0,
			movReg(insn.ClassALU64, 0, 1, 0), insn.Insn{Op: insn.ClassALU64 | insn.ALUAnd, Dst: 0, Imm: 7},
			insn.Insn{Op: insn.ClassALU64 | insn.ALUSub, Dst: 0, Imm: 8},
			insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: 0, Src: insn.R10},
			ldx(insn.ModeMEM, insn.SizeB, 0, 0, 0))}},
		{"no variable stack offset where r0 is read", varStackAccess, prog(exit()), 0, nil},
		{"another register as the first argument", first(callArgument), prog(helper(7), exit()), 0, []edit{
			insertion(0, movReg(insn.ClassALU64, 1, 0, 0))}},
		{"no argument to an exit", callArgument, prog(exit()), 0, nil},
		{"a call made twice", first(callAgain), prog(helper(7), exit()), 0, []edit{{at: 0, del: 1, repl: []insn.Insn{
			stx(insn.SizeDW, insn.R10, 1, -512), helper(7), ldx(insn.ModeMEM, insn.SizeDW, 1, insn.R10, -512), helper(7)}}}},
		{"no bpf-to-bpf call again", callAgain, prog(call(1), exit(), mov(0, 0), exit()), 0, nil},
		{"variable offset of the first argument", first(varArgOffset), prog(helper(7), exit()), 0, []edit{insertion(0,
			movReg(insn.ClassALU64, 0, 1, 0), insn.Insn{Op: insn.ClassALU64 | insn.ALUAnd, Dst: 0, Imm: 1},
			insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: 1, Src: 0})}},
		{"legacy byte load where r0 is free", first(legacyPacketLoad), prog(mov(0, 1), exit()), 0, []edit{
			insertion(0, insn.Insn{Op: insn.ClassLD | insn.ModeABS | insn.SizeB})}},
		{"no legacy load where r0 is read", legacyPacketLoad, prog(exit()), 0, nil},
		{"moved down two and three", moveInsn, straight, 0, []edit{
			{at: 0, del: 3, repl: []insn.Insn{mov(2, 2), mov(3, 3), mov(1, 1)}},
			{at: 0, del: 4, repl: []insn.Insn{mov(2, 2), mov(3, 3), mov(4, 4), mov(1, 1)}}}},
		{"moved up two, not over the exit", moveInsn, straight, 2, []edit{
			{at: 0, del: 3, repl: []insn.Insn{mov(3, 3), mov(1, 1), mov(2, 2)}}}},
	})
}
