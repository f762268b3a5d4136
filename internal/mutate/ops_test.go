package mutate

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

func ldx(mode, size, dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassLDX | mode | size, Dst: dst, Src: src, Off: off}
}

func stx(size, dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | size, Dst: dst, Src: src, Off: off}
}

func movReg(class, dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: class | insn.ALUMov | insn.SrcX, Dst: dst, Src: src, Off: off}
}

func jmpReg(class, op, dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: class | op | insn.SrcX, Dst: dst, Src: src, Off: off}
}

func addImm(dst uint8, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | insn.ALUAdd, Dst: dst, Imm: imm}
}

// TestRewriters checks each instruction rewriter's variants.
func TestRewriters(t *testing.T) {
	tests := []struct {
		name string
		fn   func(insn.Insn) []insn.Insn
		in   insn.Insn
		want []insn.Insn
	}{
		{"plain load to sign-extending", signExtLoad, ldx(insn.ModeMEM, insn.SizeW, 1, 2, 4),
			[]insn.Insn{ldx(insn.ModeMEMSX, insn.SizeW, 1, 2, 4)}},
		{"sign-extending load to plain", signExtLoad, ldx(insn.ModeMEMSX, insn.SizeB, 1, 2, 0),
			[]insn.Insn{ldx(insn.ModeMEM, insn.SizeB, 1, 2, 0)}},
		{"no sign-extending 8-byte load", signExtLoad, ldx(insn.ModeMEM, insn.SizeDW, 1, 2, 0), nil},
		{"64-bit mov to movsx", signExtMov, movReg(insn.ClassALU64, 1, 2, 0),
			[]insn.Insn{movReg(insn.ClassALU64, 1, 2, 8), movReg(insn.ClassALU64, 1, 2, 16), movReg(insn.ClassALU64, 1, 2, 32)}},
		{"32-bit mov has no 32-bit movsx", signExtMov, movReg(insn.ClassALU, 1, 2, 0),
			[]insn.Insn{movReg(insn.ClassALU, 1, 2, 8), movReg(insn.ClassALU, 1, 2, 16)}},
		{"movsx back to mov", signExtMov, movReg(insn.ClassALU64, 1, 2, 16), []insn.Insn{movReg(insn.ClassALU64, 1, 2, 0)}},
		{"jmp to jmp32", jumpWidth, jeq(1, 0, 3), []insn.Insn{{Op: insn.ClassJMP32 | insn.JmpJEQ, Dst: 1, Off: 3}}},
		{"goto to gotol", jumpWidth, ja(-4), []insn.Insn{gotol(-4)}},
		{"gotol to goto", jumpWidth, gotol(5), []insn.Insn{ja(5)}},
		{"long gotol stays", jumpWidth, gotol(1 << 20), nil},
		{"exit is no jump", jumpWidth, exit(), nil},
		{"jgt: negated, non-strict, signed", flipCondition, jmpReg(insn.ClassJMP, insn.JmpJGT, 1, 2, 1), []insn.Insn{
			jmpReg(insn.ClassJMP, insn.JmpJLE, 1, 2, 1), jmpReg(insn.ClassJMP, insn.JmpJGE, 1, 2, 1), jmpReg(insn.ClassJMP, insn.JmpJSGT, 1, 2, 1)}},
		{"jeq: negated only", flipCondition, jeq(1, 0, 2), []insn.Insn{{Op: insn.ClassJMP | insn.JmpJNE, Dst: 1, Off: 2}}},
		{"immediates", edgeImmediates, mov(1, 5), []insn.Insn{
			mov(1, 0), mov(1, 1), mov(1, -1), mov(1, 2), mov(1, 4), mov(1, 8), mov(1, math.MaxInt32), mov(1, math.MinInt32), mov(1, 6), mov(1, 4)}},
		{"no immediate in a register mov", edgeImmediates, movReg(insn.ClassALU64, 1, 2, 0), nil},
		{"jump offsets", edgeOffsets, ja(3), []insn.Insn{ja(0), ja(-1), ja(4), ja(2)}},
		{"access offsets", edgeOffsets, ldx(insn.ModeMEM, insn.SizeH, 1, 2, 4), []insn.Insn{
			ldx(insn.ModeMEM, insn.SizeH, 1, 2, 0), ldx(insn.ModeMEM, insn.SizeH, 1, 2, 1), ldx(insn.ModeMEM, insn.SizeH, 1, 2, -1),
			ldx(insn.ModeMEM, insn.SizeH, 1, 2, 2), ldx(insn.ModeMEM, insn.SizeH, 1, 2, -2),
			ldx(insn.ModeMEM, insn.SizeH, 1, 2, 6), ldx(insn.ModeMEM, insn.SizeH, 1, 2, 2),
			ldx(insn.ModeMEM, insn.SizeH, 1, 2, math.MaxInt16), ldx(insn.ModeMEM, insn.SizeH, 1, 2, math.MinInt16),
			ldx(insn.ModeMEM, insn.SizeH, 1, 2, 5), ldx(insn.ModeMEM, insn.SizeH, 1, 2, 3)}},
		{"alu64 to alu32", aluWidth, mov(1, 2), []insn.Insn{{Op: insn.ClassALU | insn.ALUMov, Dst: 1, Imm: 2}}},
		{"spill widths", spillWidth, stx(insn.SizeDW, insn.R10, 1, -8), []insn.Insn{
			stx(insn.SizeB, insn.R10, 1, -8), stx(insn.SizeH, insn.R10, 1, -8), stx(insn.SizeW, insn.R10, 1, -8)}},
		{"no spill width off the stack", spillWidth, stx(insn.SizeDW, 2, 1, -8), nil},
		{"stack slots", stackSlot, ldx(insn.ModeMEM, insn.SizeDW, 1, insn.R10, -16), []insn.Insn{
			ldx(insn.ModeMEM, insn.SizeDW, 1, insn.R10, -8), ldx(insn.ModeMEM, insn.SizeDW, 1, insn.R10, -24)}},
		{"r10 as a stored value", frameArgument, stx(insn.SizeDW, 2, 1, 0), []insn.Insn{stx(insn.SizeDW, 2, insn.R10, 0)}},
		{"r10 compared", frameArgument, jmpReg(insn.ClassJMP, insn.JmpJGT, 1, 2, 1), []insn.Insn{jmpReg(insn.ClassJMP, insn.JmpJGT, 1, insn.R10, 1)}},
		{"no r10 in an immediate mov", frameArgument, mov(1, 0), nil},
		{"if r == 0 falls through", removeNullCheck, jeq(0, 0, 5), []insn.Insn{ja(0)}},
		{"if r != 0 always jumps", removeNullCheck, insn.Insn{Op: insn.ClassJMP | insn.JmpJNE, Off: 5}, []insn.Insn{ja(5)}},
		{"a comparison with 1 is no null check", removeNullCheck, jeq(0, 1, 5), nil},
		{"load to store", loadOrStore, ldx(insn.ModeMEM, insn.SizeW, 1, 2, 4), []insn.Insn{stx(insn.SizeW, 2, 1, 4)}},
		{"store to load", loadOrStore, stx(insn.SizeB, 2, 1, 4), []insn.Insn{ldx(insn.ModeMEM, insn.SizeB, 1, 2, 4)}},
		{"no store of a sign-extending load", loadOrStore, ldx(insn.ModeMEMSX, insn.SizeW, 1, 2, 4), nil},
		{"access sizes off the stack", accessSize, ldx(insn.ModeMEMSX, insn.SizeW, 1, 2, 4), []insn.Insn{
			ldx(insn.ModeMEMSX, insn.SizeB, 1, 2, 4), ldx(insn.ModeMEMSX, insn.SizeH, 1, 2, 4)}},
		{"stack sizes are spill widths", accessSize, stx(insn.SizeDW, insn.R10, 1, -8), nil},
		{"register operand to immediates", sourceOperand, jmpReg(insn.ClassJMP, insn.JmpJGT, 1, 2, 3), []insn.Insn{
			{Op: insn.ClassJMP | insn.JmpJGT, Dst: 1, Off: 3}, {Op: insn.ClassJMP | insn.JmpJGT, Dst: 1, Imm: 1, Off: 3},
			{Op: insn.ClassJMP | insn.JmpJGT, Dst: 1, Imm: -1, Off: 3}}},
		{"no source operand of an exit", sourceOperand, exit(), nil},
		{"one helper for another", func(in insn.Insn) []insn.Insn { return otherHelper(in)[:2] }, helper(5), []insn.Insn{helper(1), helper(2)}},
		{"no helper for a bpf-to-bpf call", otherHelper, call(5), nil},
		{"narrow loads inside a 4-byte one", narrowAccess, ldx(insn.ModeMEM, insn.SizeW, 1, 2, 4), []insn.Insn{
			ldx(insn.ModeMEM, insn.SizeB, 1, 2, 5), ldx(insn.ModeMEM, insn.SizeB, 1, 2, 6), ldx(insn.ModeMEM, insn.SizeB, 1, 2, 7),
			ldx(insn.ModeMEM, insn.SizeH, 1, 2, 6)}},
		{"no narrower access than a byte", narrowAccess, stx(insn.SizeB, insn.R10, 1, -8), nil},
		{"atomic from a store", func(in insn.Insn) []insn.Insn { return atomicOperation(in)[:1] }, stx(insn.SizeDW, 2, 1, 0),
			[]insn.Insn{{Op: insn.ClassSTX | insn.ModeATOMIC | insn.SizeDW, Dst: 2, Src: 1, Imm: insn.AtomicAdd}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.fn(tt.in)); diff != "" {
				t.Errorf("variants mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestALUOperation: every other operation, signed division and modulo
// included, with the operands kept.
func TestALUOperation(t *testing.T) {
	got := aluOperation(addImm(1, 3))
	if n := len(aluOps) + 2; len(got) != n {
		t.Fatalf("%d variants, want %d", len(got), n)
	}
	for _, v := range got {
		if v.Dst != 1 || v.Imm != 3 || v.Class() != insn.ClassALU64 {
			t.Errorf("operands changed: %v", v)
		}
	}
	if got := aluOperation(insn.Insn{Op: insn.ClassALU64 | insn.ALUNeg, Dst: 1}); got != nil {
		t.Errorf("neg has variants: %v", got)
	}
}

// TestSwapRegisters: the swap comes first, then each operand replaced
// by each of r0-r9.
func TestSwapRegisters(t *testing.T) {
	got := swapRegisters(jmpReg(insn.ClassJMP, insn.JmpJGT, 1, 2, 1))
	if n := 1 + 2*10; len(got) != n {
		t.Fatalf("%d variants, want %d", len(got), n)
	}
	if diff := cmp.Diff(jmpReg(insn.ClassJMP, insn.JmpJGT, 2, 1, 1), got[0]); diff != "" {
		t.Errorf("swap mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(jmpReg(insn.ClassJMP, insn.JmpJGT, 1, 9, 1), got[len(got)-1]); diff != "" {
		t.Errorf("last replacement mismatch (-want +got):\n%s", diff)
	}
	if got := swapRegisters(exit()); got != nil {
		t.Errorf("exit has register operands: %v", got)
	}
}

// TestStructuralOperators checks the operators that look at more than one
// instruction.
func TestStructuralOperators(t *testing.T) {
	pkt := prog(movReg(insn.ClassALU64, 1, 7, 0), addImm(1, 14), jmpReg(insn.ClassJMP, insn.JmpJGT, 1, 8, 1), mov(0, 1), exit())
	ld := prog(ldImm64(1, 1, 0), exit())
	checkEdits(t, []editCase{
		{"bounds constant off by one", boundsOffByOne, pkt, 1, []edit{rewrite(1, addImm(1, 15)), rewrite(1, addImm(1, 13))}},
		{"an add nobody compares", boundsOffByOne, prog(addImm(1, 14), mov(0, 0), exit()), 0, nil},
		{"goto +0", insertGotoZero, pkt, 3, []edit{insertion(3, ja(0))}},
		{"copies of the neighbours", insertCopy, pkt, 1, []edit{insertion(1, pkt[0])}},
		{"delete", deleteInsn, pkt, 3, []edit{deletion(3, 1)}},
		{"path-dependent base", pathDependentBase, prog(ldx(insn.ModeMEM, insn.SizeW, 0, 6, 4), exit()), 0, []edit{insertion(0,
			helper(7), insn.Insn{Op: insn.ClassJMP | insn.JmpJGT, Dst: 0, Imm: 1, Off: 1}, movReg(insn.ClassALU64, 6, insn.R10, 0))}},
		{"no path-dependent argument register", pathDependentBase, prog(ldx(insn.ModeMEM, insn.SizeW, 0, 1, 4), exit()), 0, nil},
		{"clobber a compared register", clobberOperand, prog(jeq(1, 0, 1), exit()), 0, []edit{
			insertion(0, mov(1, 0)), insertion(0, mov(1, 1)), insertion(0, mov(1, -1)), insertion(0, mov(1, 8)),
			insertion(0, movReg(insn.ClassALU64, 1, insn.R10, 0))}},
		{"spill round trip of the returned register", spillRoundTrip, prog(exit()), 0, []edit{
			insertion(0, stx(insn.SizeDW, insn.R10, 0, -512), ldx(insn.ModeMEM, insn.SizeDW, 0, insn.R10, -512)),
			insertion(0, stx(insn.SizeW, insn.R10, 0, -512), ldx(insn.ModeMEM, insn.SizeW, 0, insn.R10, -512))}},
		{"no round trip of the frame pointer", spillRoundTrip, prog(stx(insn.SizeDW, insn.R10, insn.R10, -8), exit()), 0, nil},
		{"swap with the next", swapAdjacent, pkt, 0, []edit{{at: 0, del: 2, repl: []insn.Insn{pkt[1], pkt[0]}}}},
		{"no swap with a jump", swapAdjacent, pkt, 1, nil},
		{"a helper call swaps", swapAdjacent, prog(mov(1, 0), helper(7), exit()), 0, []edit{
			{at: 0, del: 2, repl: []insn.Insn{helper(7), mov(1, 0)}}}},
		{"no swap with an ld_imm64", swapAdjacent, prog(mov(1, 0), ldImm64(2, 0, 0), exit()), 0, nil},
		{"delete both halves", deleteInsn, ld, 0, []edit{deletion(0, 2)}},
		{"nothing starts in a second half", deleteInsn, ld, 1, nil},
	})
}

// TestRewritesLeaveLoaderInstructions: map and function ld_imm64s and
// second halves are the loader's, no operator rewrites them.
func TestRewritesLeaveLoaderInstructions(t *testing.T) {
	mapLoad := prog(insn.Insn{Op: insn.ClassLD | insn.ModeIMM | insn.SizeDW, Dst: 1, Src: insn.PseudoMapFD}, insn.Insn{Filler: true}, exit())
	// The structural operators insert before it or delete it; the map
	// operators are the ones meant to change it.
	structural := map[string]bool{"goto +0": true, "insert": true, "delete": true, "map": true, "map value offset": true,
		"byte swap": true, "may_goto": true, "early exit": true, "path split": true}
	for _, op := range operators {
		if structural[op.name] {
			continue
		}
		for i := range 2 {
			if got := op.edits(Env{ValueSizes: []int{8, 16}}, mapLoad, i); len(got) != 0 {
				t.Errorf("%s rewrites insn %d of a map load: %v", op.name, i, got)
			}
		}
	}
}

// TestBitFlip checks that bitFlip makes one variant per bit of the
// encoding, each one bit away from the instruction, and that it never
// makes or unmakes an ld_imm64 nor touches an ld_imm64's opcode or source.
func TestBitFlip(t *testing.T) {
	bits := func(a, b insn.Insn) int {
		n := 0
		for x := uint64(a.Op ^ b.Op); x != 0; x &= x - 1 {
			n++
		}
		for _, x := range []uint64{uint64(a.Dst ^ b.Dst), uint64(a.Src ^ b.Src), uint64(uint16(a.Off ^ b.Off)), uint64(uint32(a.Imm ^ b.Imm))} {
			for ; x != 0; x &= x - 1 {
				n++
			}
		}
		return n
	}
	ldImm := insn.Insn{Op: insn.ClassLD | insn.ModeIMM | insn.SizeDW, Dst: 1, Imm: 7}
	tests := []struct {
		name string
		in   insn.Insn
		want int
	}{
		{"mov", mov(1, 5), 8 + 4 + 4 + 16 + 32},
		{"ld_imm64: registers, offset and immediate only", ldImm, 4 + 16 + 32},
		{"load", ldx(insn.ModeMEM, insn.SizeW, 1, 2, 4), 8 + 4 + 4 + 16 + 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bitFlip(tt.in)
			if len(got) != tt.want {
				t.Errorf("%d variants, want %d", len(got), tt.want)
			}
			for _, v := range got {
				if d := bits(v, tt.in); d != 1 {
					t.Errorf("variant %v differs in %d bits", v, d)
				}
				if v.IsLdImm64() != tt.in.IsLdImm64() {
					t.Errorf("variant %v changes whether it is an ld_imm64", v)
				}
			}
		})
	}
	// BPF_LD|BPF_IMM|BPF_B (0x10) is one bit from an ld_imm64 (0x18):
	// that flip is left out.
	near := insn.Insn{Op: insn.ClassLD | insn.ModeIMM | insn.SizeB}
	for _, v := range bitFlip(near) {
		if v.IsLdImm64() {
			t.Errorf("variant %v of %v is an ld_imm64", v, near)
		}
	}
	if got := len(bitFlip(near)); got != 7+8+16+32 {
		t.Errorf("%d variants of %v, want %d", got, near, 7+8+16+32)
	}
}

// TestOtherOpcode checks that otherOpcode gives every other known opcode
// once, fields kept, and never an ld_imm64.
func TestOtherOpcode(t *testing.T) {
	known := 0
	for op := range 256 {
		if insn.KnownOpcode(uint8(op)) {
			known++
		}
	}
	in := ldx(insn.ModeMEM, insn.SizeW, 1, 2, 4)
	got := otherOpcode(in)
	// Every known opcode but its own and ld_imm64's.
	if want := known - 2; len(got) != want {
		t.Errorf("%d variants, want %d", len(got), want)
	}
	seen := map[uint8]bool{}
	for _, v := range got {
		if seen[v.Op] || v.Op == in.Op || v.IsLdImm64() || !insn.KnownOpcode(v.Op) {
			t.Errorf("bad variant %v", v)
		}
		seen[v.Op] = true
		if v.Dst != in.Dst || v.Src != in.Src || v.Off != in.Off || v.Imm != in.Imm {
			t.Errorf("variant %v changed a field", v)
		}
	}
	if got := otherOpcode(insn.Insn{Op: insn.ClassLD | insn.ModeIMM | insn.SizeDW}); got != nil {
		t.Errorf("ld_imm64 variants %v, want none", got)
	}
}

// TestJumpStretch checks that each stretched jump ends the promised
// distance short of its 16-bit limit, forward and backward, and that the
// span holds only inert fillers besides what it held.
func TestJumpStretch(t *testing.T) {
	tests := []struct {
		name  string
		p     []insn.Insn
		at    int
		limit int
	}{
		{"forward", prog(jeq(1, 0, 2), mov(0, 1), mov(0, 2), exit()), 0, math.MaxInt16},
	}
	for _, tt := range tests {
		eds := jumpStretch(tt.p, tt.at)
		if len(eds) != len(stretchShorts) {
			t.Fatalf("%s: %d edits, want %d", tt.name, len(eds), len(stretchShorts))
		}
		for k, e := range eds {
			m, err := Identity(tt.p).apply(e, "stretch")
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			j := tt.at
			if tt.name == "backward" {
				j += len(e.repl)
			}
			off, _ := m.Insns[j].Relative()
			if got, want := int(off), tt.limit-stretchShorts[k]; abs(got) != want {
				t.Errorf("%s, %d short: offset %d, want %d", tt.name, stretchShorts[k], off, want)
			}
		}
	}
	if eds := jumpStretch(prog(exit()), 0); eds != nil {
		t.Errorf("an exit stretched: %d edits", len(eds))
	}
	if eds := jumpStretch(prog(mov(0, 0), mov(1, 1), jeq(1, 0, -3), exit()), 2); eds != nil {
		t.Errorf("a backward jump stretched: %d edits", len(eds))
	}
}

// abs is |x|.
func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
