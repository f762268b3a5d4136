package verifier

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestMemOpsLiveKernel performs every kind of memory instruction (loads
// of every size, sign-extending loads, stores from registers and of
// immediates, every atomic operation with and without fetch) through
// every base a tc program has (context, packet with 16 bytes checked,
// packet end, stack, an array value, a maybe-NULL hash value, a scalar)
// at offsets around each object's edges, with a constant, a scalar or a
// pointer as the value, then masks r0 (which a pointer refuses), and
// compares verdict, message and insn_processed with the running kernel.
// check_mem_access and its callers decide per base and instruction kind
// (a sign-extending load of a context field, an atomic on the context or
// the packet, a pointer stored into a map value), where one wrong rule is
// a false accept.
func TestMemOpsLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	lookup := func(mapIndex int) asm.Instructions {
		return asm.Instructions{
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, -8),
			asm.LoadMapPtr(asm.R1, mapIndex),
			asm.FnMapLookupElem.Call(),
		}
	}
	// r1 a hash value or NULL, r5 an array value (16 bytes), r6 ctx,
	// r7 packet (16 bytes checked, else exit), r8 packet end, r9 an
	// unknown u32, r3 the constant 42, r4 the constant 1, r0 zero; the
	// stack's top 16 bytes zeroed.
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
		asm.Mov.Reg(asm.R0, asm.R7),
		asm.Add.Imm(asm.R0, 16),
		// Past the operation and the mask to the second exit.
		asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.RegSource), Dst: asm.R0, Src: asm.R8, Offset: 6},
		asm.Mov.Imm(asm.R3, 42),
		asm.Mov.Imm(asm.R4, 1),
		asm.Mov.Imm(asm.R0, 0),
	)
	maps := []*loader.Map{
		{Name: "arr", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 4},
		{Name: "hash", Type: ebpf.Hash, KeySize: 4, ValueSize: 16, MaxEntries: 4},
	}
	type op struct {
		name string
		make func(base asm.Register, off int16) asm.Instruction
	}
	var ops []op
	sizes := []asm.Size{asm.Byte, asm.Half, asm.Word, asm.DWord}
	for _, size := range sizes {
		ops = append(ops, op{fmt.Sprintf("ldx%v", size), func(b asm.Register, o int16) asm.Instruction {
			return asm.LoadMem(asm.R0, b, o, size)
		}})
		if size != asm.DWord {
			ops = append(ops, op{fmt.Sprintf("ldsx%v", size), func(b asm.Register, o int16) asm.Instruction {
				return asm.LoadMemSX(asm.R0, b, o, size)
			}})
		}
		for _, src := range []asm.Register{asm.R3, asm.R9, asm.R6} {
			ops = append(ops, op{fmt.Sprintf("stx%v %v", size, src), func(b asm.Register, o int16) asm.Instruction {
				return asm.StoreMem(b, o, src, size)
			}})
		}
		ops = append(ops, op{fmt.Sprintf("st%v", size), func(b asm.Register, o int16) asm.Instruction {
			return asm.StoreImm(b, o, 7, size)
		}})
	}
	atomics := []asm.AtomicOp{asm.AddAtomic, asm.FetchAdd, asm.AndAtomic, asm.FetchAnd, asm.OrAtomic, asm.FetchOr,
		asm.XorAtomic, asm.FetchXor, asm.Xchg, asm.CmpXchg}
	for _, a := range atomics {
		for _, size := range []asm.Size{asm.Word, asm.DWord} {
			for _, src := range []asm.Register{asm.R4, asm.R9, asm.R6} {
				ops = append(ops, op{fmt.Sprintf("%v%v %v", a, size, src), func(b asm.Register, o int16) asm.Instruction {
					return atomicInsn(a.Mem(b, src, size, o))
				}})
			}
		}
	}
	bases := []asm.Register{asm.R6, asm.R7, asm.R8, asm.RFP, asm.R5, asm.R1, asm.R9}
	offsFor := map[asm.Register][]int16{
		asm.R6: {0, 4, 76, 80, 200}, asm.R7: {-1, 0, 12, 15, 16}, asm.R8: {0},
		asm.RFP: {-16, -9, -8, -1, 0}, asm.R5: {-1, 0, 8, 12, 15, 16}, asm.R1: {0, 8}, asm.R9: {0},
	}
	compared, accepted, differ := 0, 0, 0
	for _, o := range ops {
		for _, base := range bases {
			for _, off := range offsFor[base] {
				ins := o.make(base, off)
				insns := append(asm.Instructions{}, prologue...)
				insns = append(insns, ins, asm.And.Imm(asm.R0, 1), asm.Return(),
					asm.Mov.Imm(asm.R0, 0), asm.Return())
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
				if got == kres.Err && (!res.Accepted || res.Stats.InsnProcessed == kres.InsnProcessed) {
					continue
				}
				differ++
				what := fmt.Sprintf("%s through %v%+d (%v)", o.name, base, off, ins)
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
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any program")
	}
	t.Logf("%d programs compared (%d accepted by the kernel), %d differ", compared, accepted, differ)
}
