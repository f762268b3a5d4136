package verifier

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestEncodingLiveKernel puts one instruction of every opcode byte, with
// register, offset and immediate fields drawn from values around the
// kernel's checks (reserved fields, register numbers 10 and 11, jump
// offsets out of the program, shifts by the width, sign-extension and
// address-space offsets), after a prologue that gives every register a
// value (r1 a stack pointer into initialised stack), and compares the
// verdict and decisive message with the running kernel's: resolve
// pseudo-instructions, check_subprogs, the reserved-field tests of
// do_check and check_alu_op, and the operation itself. By default a
// fixed sample of field combinations per opcode (an unsupported verdict,
// such as a kfunc call into a module BTF vercheck does not have, is not
// compared);
// VERCHECK_ENCODING_ALL=1 tries every combination (about 150,000
// loads).
func TestEncodingLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	regs := []asm.Register{0, 1, 2, 10, 11}
	offs := []int16{0, 1, -1, 8, 16, 32, 64, -8}
	imms := []int64{0, 1, -1, 8, 16, 31, 32, 63, 64, 0x10000}
	type fields struct {
		dst, src asm.Register
		off      int16
		imm      int64
	}
	var grid []fields
	for _, d := range regs {
		for _, s := range regs {
			for _, o := range offs {
				for _, i := range imms {
					grid = append(grid, fields{d, s, o, i})
				}
			}
		}
	}
	perOpcode := 12
	if os.Getenv("VERCHECK_ENCODING_ALL") != "" {
		perOpcode = len(grid)
	}
	rng := rand.New(rand.NewPCG(16, 2026))
	prologue := asm.Instructions{}
	for r := asm.R0; r <= asm.R9; r++ {
		prologue = append(prologue, asm.Mov.Imm(r, 0))
	}
	for off := int16(-64); off < 0; off += 8 {
		prologue = append(prologue, asm.StoreMem(asm.RFP, off, asm.R0, asm.DWord))
	}
	prologue = append(prologue, asm.Mov.Reg(asm.R1, asm.RFP), asm.Add.Imm(asm.R1, -32))
	compared, differ, unsupported := 0, 0, 0
	for op := 0; op < 256; op++ {
		picks := grid
		if perOpcode < len(grid) {
			picks = make([]fields, perOpcode)
			for i := range picks {
				picks[i] = grid[rng.IntN(len(grid))]
			}
		}
		for _, f := range picks {
			ins := asm.Instruction{OpCode: asm.OpCode(op), Dst: f.dst, Src: f.src, Offset: f.off, Constant: f.imm}
			insns := append(append(asm.Instructions{}, prologue...), ins, asm.Mov.Imm(asm.R0, 0), asm.Return())
			obj := &loader.Object{Path: "test"}
			p := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
			kres := kernel.LoadProgramVerdict(obj, p)
			if kres.NotLoaded {
				continue
			}
			line := kres.Err
			compared++
			res := Verify(obj, p, Options{MissingFixes: missing})
			if errors.Is(res.Err, ErrUnsupported) {
				unsupported++
				continue
			}
			got := ""
			var re *RejectError
			if errors.As(res.Err, &re) {
				got = lastLine(re.Msg)
			} else if res.Err != nil {
				got = res.Err.Error()
			}
			if got != line {
				differ++
				if line == "" {
					t.Errorf("FALSE REJECT? %v: kernel accepts, vercheck %q", ins, got)
				} else if res.Accepted {
					t.Errorf("FALSE ACCEPT %v: kernel %q, vercheck accepts", ins, line)
				} else {
					t.Errorf("%v: kernel %q, vercheck %q", ins, line, got)
				}
			}
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any program")
	}
	t.Logf("%d instructions compared, %d differ, %d unsupported by vercheck", compared, differ, unsupported)
}
