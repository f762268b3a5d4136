package verifier

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestPointerALULiveKernel applies every ALU operation, 64- and 32-bit,
// to every pair of a tc program's register kinds (context, packet with a
// checked range, packet end, stack pointer, unknown and constant
// scalars) and to immediates at the edges, then reads one byte through
// the result at three offsets, and compares verdict and decisive message
// with the running kernel. What a pointer operation yields (a pointer
// with a new offset or range, a scalar, or a refusal) is a table of rules
// in adjust_ptr_min_max_vals and its callers, where a rule read wrong is
// a false accept. VERCHECK_PTRALU_ALL=1 adds the offsets of every byte
// around the packet range.
func TestPointerALULiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	// r6 ctx, r7 packet (16 bytes checked), r8 packet end, r2 fp-16,
	// r9 an unknown u32, r3 the constant 4.
	prologue := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.LoadMem(asm.R7, asm.R6, 76, asm.Word),
		asm.LoadMem(asm.R8, asm.R6, 80, asm.Word),
		asm.LoadMem(asm.R9, asm.R6, 0, asm.Word),
		asm.Mov.Reg(asm.R0, asm.R7),
		asm.Add.Imm(asm.R0, 16),
		// To the exit past the operation and the load (below).
		{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.RegSource), Dst: asm.R0, Src: asm.R8, Offset: 8},
		asm.Mov.Imm(asm.R0, 0),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Imm(asm.R3, 4),
	}
	regs := []asm.Register{asm.R6, asm.R7, asm.R8, asm.R2, asm.R9, asm.R3}
	imms := []int64{0, 1, 8, -8, 16, 0x7fffffff}
	ops := []asm.ALUOp{asm.Add, asm.Sub, asm.Mul, asm.Div, asm.Or, asm.And, asm.LSh, asm.RSh,
		asm.Neg, asm.Mod, asm.Xor, asm.Mov, asm.ArSh}
	offs := []int16{0, 15, -1}
	if os.Getenv("VERCHECK_PTRALU_ALL") != "" {
		offs = []int16{-17, -16, -9, -8, -2, -1, 0, 1, 7, 8, 14, 15, 16, 17, 0x7fff}
	}
	var cases []asm.Instruction
	for _, op := range ops {
		for _, class := range []asm.Class{asm.ALU64Class, asm.ALUClass} {
			for _, dst := range regs {
				if op == asm.Neg {
					cases = append(cases, asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(op), Dst: dst})
					continue
				}
				for _, src := range regs {
					cases = append(cases, asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(op).SetSource(asm.RegSource), Dst: dst, Src: src})
				}
				for _, imm := range imms {
					cases = append(cases, asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(op).SetSource(asm.ImmSource), Dst: dst, Constant: imm})
				}
			}
		}
	}
	compared, differ := 0, 0
	for _, ins := range cases {
		for _, off := range offs {
			insns := append(asm.Instructions{}, prologue...)
			insns = append(insns, ins, asm.LoadMem(asm.R0, ins.Dst, off, asm.Byte),
				asm.Mov.Imm(asm.R0, 0), asm.Return())
			obj := &loader.Object{Path: "test"}
			p := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
			kres := kernel.LoadProgramVerdict(obj, p)
			if kres.NotLoaded {
				continue
			}
			compared++
			res := Verify(obj, p, Options{MissingFixes: missing})
			got := ""
			var re *RejectError
			if errors.As(res.Err, &re) {
				got = lastLine(re.Msg)
			} else if res.Err != nil {
				got = res.Err.Error()
			}
			if got != kres.Err {
				differ++
				what := fmt.Sprintf("%v; r0 = *(u8 *)(%v %+d)", ins, ins.Dst, off)
				switch {
				case kres.Accepted:
					t.Errorf("%s: kernel accepts, vercheck %q", what, got)
				case res.Accepted:
					t.Errorf("FALSE ACCEPT %s: kernel %q, vercheck accepts", what, kres.Err)
				default:
					t.Errorf("%s: kernel %q, vercheck %q", what, kres.Err, got)
				}
			}
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any program")
	}
	t.Logf("%d programs compared, %d differ", compared, differ)
}
