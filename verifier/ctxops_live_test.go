package verifier

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestCtxOpsLiveKernel runs every kind of context access (loads of every
// size, sign-extending loads, stores of a register and of an immediate,
// atomic adds) at every offset around the context of each program type
// the running kernel loads without a BTF target, masks what a load gave
// (which a pointer refuses), and compares verdict, message and
// insn_processed of the whole program with the running kernel.
// TestCtxLayoutLiveKernel checks the layouts alone; this checks what the
// verifier makes of each access: the type a field loads as, the refusal
// of a sign-extending load of a pointer field (issue 11's most frequent
// false accept), of immediates stored and atomics on the context. By
// default every 13th access; VERCHECK_CTXOPS_ALL=1 for all.
func TestCtxOpsLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	const maxProbeOff = 256
	types := ctxLiveTypes
	type access struct {
		name string
		make func(off int16) asm.Instructions
	}
	var accesses []access
	for size, asmSize := range ctxAccessSizes {
		accesses = append(accesses,
			access{fmt.Sprintf("ldx%d", size), func(off int16) asm.Instructions {
				return asm.Instructions{asm.LoadMem(asm.R2, asm.R1, off, asmSize), asm.And.Imm(asm.R2, 1)}
			}},
			access{fmt.Sprintf("stx%d", size), func(off int16) asm.Instructions {
				return asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.StoreMem(asm.R1, off, asm.R2, asmSize)}
			}},
			access{fmt.Sprintf("st%d", size), func(off int16) asm.Instructions {
				return asm.Instructions{asm.StoreImm(asm.R1, off, 0, asmSize)}
			}})
		if size < 8 {
			accesses = append(accesses, access{fmt.Sprintf("ldsx%d", size), func(off int16) asm.Instructions {
				return asm.Instructions{asm.LoadMemSX(asm.R2, asm.R1, off, asmSize), asm.And.Imm(asm.R2, 1)}
			}})
		}
		if size >= 4 {
			accesses = append(accesses, access{fmt.Sprintf("atomic add%d", size), func(off int16) asm.Instructions {
				return asm.Instructions{asm.Mov.Imm(asm.R2, 1), atomicInsn(asm.AddAtomic.Mem(asm.R1, asm.R2, asmSize, off))}
			}})
		}
	}
	all := os.Getenv("VERCHECK_CTXOPS_ALL") != ""
	n, compared, accepted, differ := 0, 0, 0, 0
	for _, lt := range types {
		_, csize := ctxaccess.Layout(lt.pt)
		exit := int64(0)
		if lo, _, ok := retRange(lt.pt, lt.at); ok {
			exit = lo
		}
		for off := -sizeU64; off < min(csize+2*sizeU64, maxProbeOff); off++ {
			for _, a := range accesses {
				if n++; !all && n%13 != 0 {
					continue
				}
				insns := append(a.make(int16(off)), asm.Mov.Imm(asm.R0, int32(exit)), asm.Return())
				obj := &loader.Object{Path: "test"}
				p := &loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, License: "GPL", GPLCompatible: true, Instructions: insns}
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
				what := fmt.Sprintf("%v/%v %s at ctx%+d", lt.pt, lt.at, a.name, off)
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
