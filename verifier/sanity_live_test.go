package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
)

// TestSanityCheckLiveKernel: the kernel checks a register's bounds
// against one another and its tnum (reg_bounds_sanity_check) after a
// conditional jump refines it, after every ALU instruction ("alu") and
// after every load ("ldx"). An infeasible edge resets a register's bounds
// and keeps its tnum, so a constant subregister tnum leaves it
// inconsistent: each copy of it is reported again. The logs at level 2
// are compared with the kernel's for the ways such a register is used.
func TestSanityCheckLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	// r5 = rand &^ 3, r7 = (rand & 1) - 43: "if w5 != w7" cannot fall
	// through, and its fall-through leaves r5 with bounds reset and the
	// subregister tnum 0xffffffd4 (tnums_equal_impossible_constant).
	prologue := asm.Instructions{
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R5, asm.R0),
		asm.And.Imm(asm.R5, -4),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.And.Imm(asm.R7, 1),
		asm.Add.Imm(asm.R7, -43),
		// To the exit withOutExit appends (offset -1).
		{OpCode: asm.OpCode(asm.Jump32Class).SetJumpOp(asm.JNE).SetSource(asm.RegSource), Dst: asm.R5, Src: asm.R7, Offset: -1},
	}
	uses := []struct {
		name  string
		insns asm.Instructions
	}{
		{"mov", asm.Instructions{asm.Mov.Reg(asm.R0, asm.R5)}},
		{"mov32", asm.Instructions{asm.Mov.Reg32(asm.R0, asm.R5)}},
		{"add", asm.Instructions{asm.Mov.Reg(asm.R0, asm.R5), asm.Add.Imm(asm.R0, 1)}},
		{"neg", asm.Instructions{asm.Mov.Reg(asm.R0, asm.R5), asm.Neg.Imm(asm.R0, 0)}},
		{"spill and fill", asm.Instructions{
			asm.StoreMem(asm.RFP, -8, asm.R5, asm.DWord),
			asm.LoadMem(asm.R0, asm.RFP, -8, asm.DWord),
		}},
		{"fill of the low half", asm.Instructions{
			asm.StoreMem(asm.RFP, -8, asm.R5, asm.DWord),
			asm.LoadMem(asm.R0, asm.RFP, -8, asm.Word),
		}},
		{"pointer plus it", asm.Instructions{
			asm.Mov.Reg(asm.R0, asm.RFP),
			asm.Add.Reg(asm.R0, asm.R5),
			asm.Mov.Imm(asm.R0, 0),
		}},
	}
	for _, u := range uses {
		insns := append(asm.Instructions{}, prologue...)
		insns = append(insns, u.insns...)
		insns = withOutExit(append(insns, asm.Mov.Imm(asm.R0, 1), asm.Return()))
		prog := &loader.Program{Name: "p", Type: ebpf.SocketFilter, License: "GPL", GPLCompatible: true, Instructions: insns}
		sweep.check(&loader.Object{Path: "test"}, prog, func() string { return u.name })
	}
	sweep.done()
}
