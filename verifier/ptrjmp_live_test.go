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

// TestPointerJumpLiveKernel compares, with every conditional jump, 64-
// and 32-bit, every pair of a tc program's register kinds (packet at two
// offsets, packet end, context, stack pointer, unknown and constant
// scalars, a map value and a maybe-NULL one) and edge immediates, then
// reads through a pointer at the edge of its object on one edge, and
// compares verdict and decisive message with the running
// kernel. Which edges the kernel explores (is_branch_taken, pointers
// against NULL only on 64 bits) and what each edge learns (the packet
// range of try_match_pkt_pointers, AT_PKT_END and BEYOND_PKT_END marks)
// are where the first false accepts of issue 11 were.
// By default a fixed seventh of the combinations (3,400 programs);
// VERCHECK_PTRJMP_ALL=1 tries them all and reads at more offsets
// (76,000 programs).
func TestPointerJumpLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	// r1 a hash map value or NULL, r5 an array map value (a constant key
	// in range: never NULL), r6 ctx, r7 packet, r4 packet + 8, r8 packet
	// end, r2 fp-16, r9 an unknown u32, r3 the constant 4.
	lookup := func(mapIndex int64) asm.Instructions {
		return asm.Instructions{
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, -8),
			asm.LoadMapPtr(asm.R1, int(mapIndex)),
			asm.FnMapLookupElem.Call(),
		}
	}
	prologue := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.Mov.Imm(asm.R0, 0),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R0, asm.DWord),
	}
	prologue = append(prologue, lookup(0)...)
	prologue = append(prologue, asm.Mov.Reg(asm.R7, asm.R0))
	prologue = append(prologue, lookup(1)...)
	prologue = append(prologue,
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Reg(asm.R5, asm.R7),
		asm.LoadMem(asm.R7, asm.R6, 76, asm.Word),
		asm.LoadMem(asm.R8, asm.R6, 80, asm.Word),
		asm.LoadMem(asm.R9, asm.R6, 0, asm.Word),
		asm.Mov.Reg(asm.R4, asm.R7),
		asm.Add.Imm(asm.R4, 8),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Imm(asm.R3, 4),
	)
	maps := []*loader.Map{
		{Name: "arr", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 4},
		{Name: "hash", Type: ebpf.Hash, KeySize: 4, ValueSize: 16, MaxEntries: 4},
	}
	regs := []asm.Register{asm.R7, asm.R4, asm.R8, asm.R6, asm.R2, asm.R9, asm.R3, asm.R5, asm.R1}
	imms := []int64{0, 1, 8}
	ops := []asm.JumpOp{asm.JEq, asm.JGT, asm.JGE, asm.JSet, asm.JNE, asm.JSGT, asm.JSGE, asm.JLT, asm.JLE, asm.JSLT, asm.JSLE}
	// Loads at the edge of the packet range (8 bytes checked on some
	// edges), of the array value (16 bytes) and through the maybe-NULL
	// hash value.
	type load struct {
		reg asm.Register
		off int16
	}
	loads := []load{{asm.R7, 7}, {asm.R7, 8}, {asm.R5, 15}, {asm.R5, 16}, {asm.R1, 0}}
	all := os.Getenv("VERCHECK_PTRJMP_ALL") != ""
	if all {
		loads = append(loads, load{asm.R7, -1}, load{asm.R7, 0}, load{asm.R7, 15}, load{asm.R7, 16},
			load{asm.R5, 0}, load{asm.R5, -1}, load{asm.R1, 15}, load{asm.R1, 16}, load{asm.R4, -1}, load{asm.R4, 0})
	}
	var jumps []asm.Instruction
	for _, op := range ops {
		for _, class := range []asm.Class{asm.JumpClass, asm.Jump32Class} {
			for _, dst := range regs {
				for _, src := range regs {
					jumps = append(jumps, asm.Instruction{OpCode: asm.OpCode(class).SetJumpOp(op).SetSource(asm.RegSource), Dst: dst, Src: src, Offset: 2})
				}
				for _, imm := range imms {
					jumps = append(jumps, asm.Instruction{OpCode: asm.OpCode(class).SetJumpOp(op).SetSource(asm.ImmSource), Dst: dst, Constant: imm, Offset: 2})
				}
			}
		}
	}
	compared, accepted, differ := 0, 0, 0
	// The load on the taken edge only (the fallthrough exits), or on the
	// fallthrough only (the jump skips it).
	shapes := map[string]func(jmp, load asm.Instruction) asm.Instructions{
		"taken": func(jmp, load asm.Instruction) asm.Instructions {
			jmp.Offset = 2
			return asm.Instructions{jmp, asm.Mov.Imm(asm.R0, 0), asm.Return(), load}
		},
		"fallthrough": func(jmp, load asm.Instruction) asm.Instructions {
			jmp.Offset = 1
			return asm.Instructions{jmp, load}
		},
	}
	n := 0
	for _, jmp := range jumps {
		for _, ld := range loads {
			for edge, shape := range shapes {
				if n++; !all && n%7 != 0 {
					continue // a fixed seventh by default
				}
				insns := append(asm.Instructions{}, prologue...)
				insns = append(insns, shape(jmp, asm.LoadMem(asm.R0, ld.reg, ld.off, asm.Byte))...)
				insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
				obj := &loader.Object{Path: "test", Maps: maps}
				p := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
				kres := kernel.LoadProgramVerdict(obj, p)
				if kres.NotLoaded {
					continue
				}
				compared++
				if kres.Accepted {
					accepted++
				}
				res := Verify(obj, p, Options{MissingFixes: missing})
				got := ""
				var re *RejectError
				if errors.As(res.Err, &re) {
					got = lastLine(re.Msg)
				} else if res.Err != nil {
					got = res.Err.Error()
				}
				if got != kres.Err || res.Accepted && res.Stats.InsnProcessed != kres.InsnProcessed {
					differ++
					what := fmt.Sprintf("%v; r0 = *(u8 *)(%v %+d) on the %s edge", jmp, ld.reg, ld.off, edge)
					switch {
					case kres.Accepted && !res.Accepted:
						t.Errorf("%s: kernel accepts, vercheck %q", what, got)
					case res.Accepted && !kres.Accepted:
						t.Errorf("FALSE ACCEPT %s: kernel %q, vercheck accepts", what, kres.Err)
					case res.Accepted:
						t.Errorf("%s: insn_processed %d, kernel %d", what, res.Stats.InsnProcessed, kres.InsnProcessed)
					default:
						t.Errorf("%s: kernel %q, vercheck %q", what, kres.Err, got)
					}
				}
			}
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any program")
	}
	t.Logf("%d programs compared (%d accepted by the kernel), %d differ", compared, accepted, differ)
}
