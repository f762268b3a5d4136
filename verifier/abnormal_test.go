package verifier_test

import (
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/verifier"
)

// abnormalSubprog is a main program whose call of its subprogram is dead
// code (r0 is 0, the jump skips the call), then the subprogram: body,
// "r0 = 0; exit".
func abnormalSubprog(body ...asm.Instruction) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R0, 0),
		jump(asm.JEq, asm.R0, 0, 1),
		{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall, Constant: 1},
		asm.Return(),
	}
	return append(append(insns, body...), asm.Mov.Imm(asm.R0, 0), asm.Return())
}

// TestAbnormalReturnWithoutBTF: without BTF function info, a subprogram
// may use neither LD_ABS/LD_IND nor bpf_tail_call, reachable or not
// (check_abnormal_return, before any instruction is verified); the
// kernel's verdicts, from a fuzzed false accept.
func TestAbnormalReturnWithoutBTF(t *testing.T) {
	tests := []struct {
		name  string
		insns asm.Instructions
		want  string
	}{
		{"LD_ABS", abnormalSubprog(asm.LoadAbs(0, asm.Byte)), "LD_ABS is not allowed in subprogs without BTF"},
		{"LD_IND", abnormalSubprog(asm.Mov.Imm(asm.R7, 0), asm.LoadInd(asm.R0, asm.R7, 0, asm.Half)), "LD_ABS is not allowed in subprogs without BTF"},
		{"tail call", abnormalSubprog(asm.Mov.Imm(asm.R3, 0), asm.FnTailCall.Call()), "tail_call is not allowed in subprogs without BTF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := verifyInsns(tt.insns, verifier.Options{})
			if res.Accepted || res.Err == nil || res.Err.Error() != tt.want {
				t.Errorf("Verify = accepted %v, %v; want %q", res.Accepted, res.Err, tt.want)
			}
		})
	}
}
