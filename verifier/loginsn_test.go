package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// TestLogInsn checks print_bpf_insn's text in verbose_insn's line: "(op)
// text", and the bare "BUG_op" of an encoding it cannot name (live logs of
// bit-flipped atomics print no opcode in front).
func TestLogInsn(t *testing.T) {
	tests := []struct {
		in   insn.Insn
		want string
	}{
		{insn.Insn{Op: insn.ClassALU64 | insn.ALUMov, Dst: 0, Imm: 1}, "(b7) r0 = 1"},
		{insn.Insn{Op: insn.ClassSTX | insn.ModeATOMIC | insn.SizeW, Dst: 1, Src: 2, Imm: 0x80}, "BUG_c3"},
		{insn.Insn{Op: insn.ClassSTX | insn.ModeATOMIC | insn.SizeDW, Dst: 1, Src: 2, Imm: insn.AtomicAdd}, "(db) lock *(u64 *)(r1 +0) += r2"},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, insnText(tt.in)); d != "" {
			t.Errorf("%v (-want +got):\n%s", tt.in, d)
		}
	}
}
