package mutate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

func atomic(size, dst, src uint8, off int16, op int32) insn.Insn {
	return insn.Insn{Op: insn.ClassSTX | insn.ModeATOMIC | size, Dst: dst, Src: src, Off: off, Imm: op}
}

func bswap(op uint8, dst uint8, width int32) insn.Insn {
	return insn.Insn{Op: op | insn.ALUEnd, Dst: dst, Imm: width}
}

// TestPointerOperators checks the operators for byte swaps, may_goto,
// narrow accesses, stores of pointers, atomics and pointer arithmetic,
// by their first edits and their number.
func TestPointerOperators(t *testing.T) {
	load := prog(ldx(insn.ModeMEM, insn.SizeW, 0, 6, 4), exit())
	tests := []struct {
		name  string
		fn    func([]insn.Insn, int) []edit
		prog  []insn.Insn
		at    int
		first []edit
		n     int
	}{
		{"byte swap to each other form", byteSwap, prog(bswap(insn.ClassALU|insn.EndToBE, 3, 16), exit()), 0, []edit{
			rewrite(0, bswap(insn.ClassALU|insn.EndToLE, 3, 16)), rewrite(0, bswap(insn.ClassALU|insn.EndToLE, 3, 32))}, 8},
		{"byte swaps of the operands", byteSwap, prog(stx(insn.SizeW, 6, 2, 0), exit()), 0, []edit{
			insertion(0, bswap(insn.ClassALU|insn.EndToLE, 6, 16))}, 18},
		{"no byte swap of r10", byteSwap, prog(stx(insn.SizeW, insn.R10, 2, -4), exit()), 0, []edit{
			insertion(0, bswap(insn.ClassALU|insn.EndToLE, 2, 16))}, 9},
		{"goto to may_goto, may_goto around", mayGoto, prog(ja(1), exit(), exit()), 0, []edit{
			rewrite(0, mayGotoInsn(1)), insertion(0, mayGotoInsn(0)), insertion(0, mayGotoInsn(1))}, 3},
		{"may_goto over an ld_imm64", mayGoto, prog(ldImm64(1, 0, 0), exit()), 0, []edit{
			insertion(0, mayGotoInsn(0)), insertion(0, mayGotoInsn(2))}, 2},
		{"pointer stores at the address", pointerStore, load, 0, []edit{
			insertion(0, stx(insn.SizeDW, 6, 0, 4)), insertion(0, stx(insn.SizeW, 6, 0, 4))}, 22},
		{"load-acquire, then atomics at the address", atomicAccess, load, 0, []edit{
			rewrite(0, atomic(insn.SizeW, 0, 6, 4, insn.AtomicLoadAcq)),
			insertion(0, atomic(insn.SizeW, 6, 0, 4, insn.AtomicAdd))}, 1 + 10*2 + 2*4},
		{"pointer arithmetic on the base", pointerALU, load, 0, []edit{
			insertion(0, insn.Insn{Op: insn.ClassALU64 | insn.ALUNeg, Dst: 6}),
			insertion(0, insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: 6, Src: 0})}, 2 * (1 + 12*13)},
		{"a bounded unknown offset on the base", varOffsetBase, load, 0, []edit{insertion(0,
			ldx(insn.ModeMEM, insn.SizeB, insn.R9, insn.R10, -8), insn.Insn{Op: insn.ClassALU64 | insn.ALUAnd, Dst: insn.R9, Imm: 1},
			insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: 6, Src: insn.R9})}, 4},
		{"no variable offset on r10", varOffsetBase, prog(ldx(insn.ModeMEM, insn.SizeW, 0, insn.R10, -4), exit()), 0, nil, 0},
		{"no arithmetic on r10", pointerALU, prog(ldx(insn.ModeMEM, insn.SizeW, 0, insn.R10, -4), exit()), 0, nil, 0},
		{"no pointer store at an exit", pointerStore, load, 1, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.fn(tt.prog, tt.at)
			if len(got) != tt.n {
				t.Fatalf("%d edits, want %d", len(got), tt.n)
			}
			if diff := cmp.Diff(tt.first, got[:len(tt.first)], cmp.AllowUnexported(edit{})); diff != "" {
				t.Errorf("first edits mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVarOffsetBaseSigned: the last variable offset is the unknown byte
// sign-extended, a range with a negative minimum.
func TestVarOffsetBaseSigned(t *testing.T) {
	got := varOffsetBase(prog(ldx(insn.ModeMEM, insn.SizeW, 0, 6, 4), exit()), 0)
	want := insertion(0, ldx(insn.ModeMEMSX, insn.SizeB, insn.R9, insn.R10, -8),
		insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcX, Dst: 6, Src: insn.R9})
	if diff := cmp.Diff(want, got[len(got)-1], cmp.AllowUnexported(edit{})); diff != "" {
		t.Errorf("signed edit mismatch (-want +got):\n%s", diff)
	}
}
