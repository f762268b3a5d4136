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

// TestStackLiveKernel puts a stack slot in one of several states (a
// spilled context pointer, a spilled constant, a 32-bit spill, zeroes
// stored as an immediate, plain data, nothing), overwrites part of it
// with a store of every size at offsets across the slot (a constant, an
// unknown scalar or a pointer; at a fixed or a variable offset), reads it
// back at every size, and uses what it read as a pointer, then compares
// verdict, message and insn_processed with the running kernel. Spills,
// fills and partial overwrites (check_stack_write_fixed_off and _var_off,
// check_stack_read_fixed_off, the stable fixes around them) are where a
// state read wrong lets a scalar through as a pointer. By default a fixed
// fifth of the combinations; VERCHECK_STACK_ALL=1 for all.
func TestStackLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	// r6 ctx, r9 an unknown u32, r8 fp-16 plus (r9 & 3): a variable
	// stack offset.
	prologue := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.LoadMem(asm.R9, asm.R6, 0, asm.Word),
		asm.Mov.Reg(asm.R8, asm.R9),
		asm.And.Imm(asm.R8, 3),
		asm.Add.Reg(asm.R8, asm.RFP),
		asm.Add.Imm(asm.R8, -16),
		asm.Mov.Imm(asm.R3, 42),
	}
	slot := map[string]asm.Instructions{
		"nothing":     nil,
		"ctx spill":   {asm.StoreMem(asm.RFP, -16, asm.R6, asm.DWord)},
		"const spill": {asm.StoreMem(asm.RFP, -16, asm.R3, asm.DWord)},
		"32-bit spill": {
			asm.StoreMem(asm.RFP, -16, asm.R3, asm.Word),
			asm.StoreMem(asm.RFP, -12, asm.R3, asm.Word),
		},
		"zero imm": {storeImm(asm.RFP, -16, 0, asm.DWord)},
		"data": {
			asm.StoreMem(asm.RFP, -16, asm.R9, asm.Word),
			asm.StoreMem(asm.RFP, -12, asm.R9, asm.Half),
			asm.StoreMem(asm.RFP, -10, asm.R9, asm.Half),
		},
	}
	type store struct {
		name string
		ins  asm.Instruction
	}
	stores := []store{{"no store", asm.Instruction{}}}
	for _, size := range []asm.Size{asm.Byte, asm.Half, asm.Word, asm.DWord} {
		for _, off := range []int16{-16, -15, -12, -9} {
			if int(off)+size.Sizeof() > -8 {
				continue
			}
			for _, src := range []asm.Register{asm.R3, asm.R9, asm.R6} {
				stores = append(stores, store{fmt.Sprintf("*(%v *)(fp%d) = %v", size, off, src), asm.StoreMem(asm.RFP, off, src, size)})
			}
			stores = append(stores, store{fmt.Sprintf("*(%v *)(fp%d) = 0", size, off), storeImm(asm.RFP, off, 0, size)})
		}
		for _, src := range []asm.Register{asm.R3, asm.R9} {
			stores = append(stores, store{fmt.Sprintf("*(%v *)(r8 var) = %v", size, src), asm.StoreMem(asm.R8, 0, src, size)})
		}
	}
	type read struct {
		size asm.Size
		off  int16
	}
	var reads []read
	for _, size := range []asm.Size{asm.Byte, asm.Half, asm.Word, asm.DWord} {
		for _, off := range []int16{-16, -12, -9} {
			if int(off)+size.Sizeof() <= -8 {
				reads = append(reads, read{size, off})
			}
		}
	}
	// Use the value read as a pointer (a context read if it is the
	// spilled context), or return it (a scalar exit).
	uses := map[string]asm.Instructions{
		"deref":  {asm.LoadMem(asm.R0, asm.R0, 0, asm.Word), asm.Mov.Imm(asm.R0, 0), asm.Return()},
		"return": {asm.And.Imm(asm.R0, 1), asm.Return()},
	}
	all := os.Getenv("VERCHECK_STACK_ALL") != ""
	n, compared, accepted, differ := 0, 0, 0, 0
	for slotName, fill := range slot {
		for _, st := range stores {
			for _, rd := range reads {
				for useName, use := range uses {
					if n++; !all && n%5 != 0 {
						continue
					}
					insns := append(asm.Instructions{}, prologue...)
					insns = append(insns, fill...)
					if st.ins.OpCode != 0 {
						insns = append(insns, st.ins)
					}
					insns = append(insns, asm.LoadMem(asm.R0, asm.RFP, rd.off, rd.size))
					insns = append(insns, use...)
					obj := &loader.Object{Path: "test"}
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
					what := fmt.Sprintf("%s; %s; r0 = *(%v *)(fp%d); %s", slotName, st.name, rd.size, rd.off, useName)
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

// storeImm is "*(size *)(dst + off) = v" (BPF_ST) at every size:
// cilium/ebpf's asm.StoreImm refuses the 64-bit one, giving an invalid
// opcode instead, so a sweep using it for DWord tested no store at all.
func storeImm(dst asm.Register, off int16, v int32, size asm.Size) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(size), Dst: dst, Offset: off, Constant: int64(v)}
}

// atomicInsn gives an atomic instruction built by cilium/ebpf's asm
// constructors (asm.Xchg.Mem, asm.LoadAcquire, ...) its operation in the
// immediate: they leave the immediate 0, which marshals as BPF_ADD, so a
// sweep of "every atomic" built with them tested atomic add only.
func atomicInsn(ins asm.Instruction) asm.Instruction {
	ins.Constant = int64(ins.OpCode.AtomicOp() >> 8)
	return ins
}
