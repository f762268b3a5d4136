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

// TestHelperMemLiveKernel passes memory to helpers whose arguments are a
// pointer and a size (uninitialised memory to write, read-only memory
// that may be NULL, a map key and value, a packet-reading helper) from
// every base a tc program has (initialised and uninitialised stack, an
// array value, the packet with 16 bytes checked, the context, NULL, a
// scalar), at two offsets, with sizes at the edges (0, 1, 8, 9, 16, 17,
// a bounded and an unbounded variable size, -1), and compares verdict,
// message and insn_processed with the running kernel. check_helper_mem_access
// and check_mem_size_reg, with their zero-size and variable-size rules
// and the stack's initialisation marks, are a classic place for a false
// accept.
func TestHelperMemLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	// r5 an array value (16 bytes), r6 ctx, r7 packet (16 bytes checked,
	// else exit), r9 an unknown u32, r8 = r9 & 15; fp-16..fp-9
	// initialised, fp-32..fp-17 not.
	prologue := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.Mov.Imm(asm.R0, 0),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.LoadMapPtr(asm.R1, 0),
		asm.FnMapLookupElem.Call(),
		asm.Mov.Reg(asm.R5, asm.R0),
		asm.LoadMem(asm.R7, asm.R6, 76, asm.Word),
		asm.LoadMem(asm.R8, asm.R6, 80, asm.Word),
		asm.LoadMem(asm.R9, asm.R6, 0, asm.Word),
		asm.Mov.Reg(asm.R0, asm.R7),
		asm.Add.Imm(asm.R0, 16),
	}
	maps := []*loader.Map{{Name: "arr", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 4}}
	type base struct {
		name string
		set  asm.Instructions // into r4
	}
	bases := []base{
		{"stack", asm.Instructions{asm.Mov.Reg(asm.R4, asm.RFP), asm.Add.Imm(asm.R4, -16)}},
		{"uninit stack", asm.Instructions{asm.Mov.Reg(asm.R4, asm.RFP), asm.Add.Imm(asm.R4, -32)}},
		{"map value", asm.Instructions{asm.Mov.Reg(asm.R4, asm.R5)}},
		{"packet", asm.Instructions{asm.Mov.Reg(asm.R4, asm.R7)}},
		{"ctx", asm.Instructions{asm.Mov.Reg(asm.R4, asm.R6)}},
		{"NULL", asm.Instructions{asm.Mov.Imm(asm.R4, 0)}},
		{"scalar", asm.Instructions{asm.Mov.Reg(asm.R4, asm.R9)}},
	}
	type size struct {
		name string
		set  asm.Instructions // into r3
	}
	sizes := []size{{"unbounded", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9)}},
		{"[0,15]", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9), asm.And.Imm(asm.R3, 15)}}}
	for _, n := range []int32{0, 1, 8, 9, 16, 17, -1} {
		sizes = append(sizes, size{fmt.Sprint(n), asm.Instructions{asm.Mov.Imm(asm.R3, n)}})
	}
	// Each call takes the memory in r4 and the size in r3 and moves them
	// to its argument registers.
	calls := map[string]asm.Instructions{
		"bpf_skb_load_bytes(ctx, 0, mem, size)": {
			asm.Mov.Reg(asm.R1, asm.R6), asm.Mov.Imm(asm.R2, 0), asm.Mov.Reg(asm.R0, asm.R3),
			asm.Mov.Reg(asm.R3, asm.R4), asm.Mov.Reg(asm.R4, asm.R0), asm.FnSkbLoadBytes.Call()},
		"bpf_skb_store_bytes(ctx, 0, mem, size, 0)": {
			asm.Mov.Reg(asm.R1, asm.R6), asm.Mov.Imm(asm.R2, 0), asm.Mov.Reg(asm.R0, asm.R3),
			asm.Mov.Reg(asm.R3, asm.R4), asm.Mov.Reg(asm.R4, asm.R0), asm.Mov.Imm(asm.R5, 0), asm.FnSkbStoreBytes.Call()},
		"bpf_csum_diff(mem, size, NULL, 0, 0)": {
			asm.Mov.Reg(asm.R1, asm.R4), asm.Mov.Reg(asm.R2, asm.R3), asm.Mov.Imm(asm.R3, 0),
			asm.Mov.Imm(asm.R4, 0), asm.Mov.Imm(asm.R5, 0), asm.FnCsumDiff.Call()},
		"bpf_probe_read_kernel(mem, size, NULL)": {
			asm.Mov.Reg(asm.R1, asm.R4), asm.Mov.Reg(asm.R2, asm.R3), asm.Mov.Imm(asm.R3, 0), asm.FnProbeReadKernel.Call()},
		"bpf_get_current_comm(mem, size)": {
			asm.Mov.Reg(asm.R1, asm.R4), asm.Mov.Reg(asm.R2, asm.R3), asm.FnGetCurrentComm.Call()},
		"bpf_probe_read_kernel_str(mem, size, NULL)": {
			asm.Mov.Reg(asm.R1, asm.R4), asm.Mov.Reg(asm.R2, asm.R3), asm.Mov.Imm(asm.R3, 0), asm.FnProbeReadKernelStr.Call()},
		"bpf_trace_printk(mem, size)": {
			asm.Mov.Reg(asm.R1, asm.R4), asm.Mov.Reg(asm.R2, asm.R3), asm.FnTracePrintk.Call()},
		"bpf_strncmp(mem, size, NULL)": {
			asm.Mov.Reg(asm.R1, asm.R4), asm.Mov.Reg(asm.R2, asm.R3), asm.Mov.Imm(asm.R3, 0), asm.FnStrncmp.Call()},
		"bpf_map_update_elem(arr, mem, mem, 0)": {
			asm.LoadMapPtr(asm.R1, 0), asm.Mov.Reg(asm.R2, asm.R4), asm.Mov.Reg(asm.R3, asm.R4),
			asm.Mov.Imm(asm.R4, 0), asm.FnMapUpdateElem.Call()},
	}
	compared, accepted, differ := 0, 0, 0
	for callName, call := range calls {
		for _, b := range bases {
			for _, off := range []int32{0, 8} {
				for _, sz := range sizes {
					body := append(asm.Instructions{}, b.set...)
					body = append(body, asm.Add.Imm(asm.R4, off))
					body = append(body, sz.set...)
					body = append(body, call...)
					body = append(body, asm.Mov.Imm(asm.R0, 0), asm.Return())
					insns := append(asm.Instructions{}, prologue...)
					// Past the body to a second exit when the packet
					// is shorter than 16 bytes.
					insns = append(insns, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.RegSource),
						Dst: asm.R0, Src: asm.R8, Offset: int16(len(body))})
					insns = append(insns, body...)
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
					if got == kres.Err && (!res.Accepted || res.Stats.InsnProcessed == kres.InsnProcessed) {
						continue
					}
					differ++
					what := fmt.Sprintf("%s with %s%+d, size %s", callName, b.name, off, sz.name)
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
