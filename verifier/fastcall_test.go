package verifier_test

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestFastcallStackDepth checks the stack depth left once the bpf_fastcall
// spill/fill pairs are dropped (remove_fastcall_spills_fills), as the
// running kernel reports it (fc13_fastcall.c).
func TestFastcallStackDepth(t *testing.T) {
	spill := func(r asm.Register, off int16) asm.Instruction { return asm.StoreMem(asm.RFP, off, r, asm.DWord) }
	fill := func(r asm.Register, off int16) asm.Instruction { return asm.LoadMem(r, asm.RFP, off, asm.DWord) }
	smp := asm.FnGetSmpProcessorId.Call()
	exit := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
	body := func(insns ...asm.Instruction) asm.Instructions {
		return append(append(asm.Instructions{asm.Mov.Imm(asm.R1, 1), asm.Mov.Imm(asm.R2, 2)}, insns...), exit...)
	}
	tests := []struct {
		name  string
		typ   ebpf.ProgramType
		insns asm.Instructions
		want  []int
	}{
		{"dropped", ebpf.XDP, body(spill(asm.R1, -8), smp, fill(asm.R1, -8)), []int{0}},
		{"raw proto is not fastcall", ebpf.SocketFilter, body(spill(asm.R1, -8), smp, fill(asm.R1, -8)), []int{8}},
		{"two pairs", ebpf.XDP, body(spill(asm.R2, -8), spill(asm.R1, -16), smp, fill(asm.R1, -16), fill(asm.R2, -8)), []int{0}},
		{"other slot above", ebpf.XDP, body(spill(asm.R2, -8), spill(asm.R1, -16), smp, fill(asm.R1, -16)), []int{8}},
		{"not the lowest slot", ebpf.XDP, body(spill(asm.R2, -16), spill(asm.R1, -8), smp, fill(asm.R1, -8)), []int{16}},
		{"contract broken", ebpf.XDP, body(spill(asm.R1, -8), smp, fill(asm.R1, -8), fill(asm.R3, -8)), []int{8}},
		{"not fastcall", ebpf.XDP, body(spill(asm.R1, -8), asm.FnGetPrandomU32.Call(), fill(asm.R1, -8)), []int{8}},
		{"one pattern not fastcall", ebpf.XDP, body(spill(asm.R1, -8), smp, fill(asm.R1, -8), spill(asm.R1, -8), asm.FnGetPrandomU32.Call(), fill(asm.R1, -8)), []int{8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := &loader.Program{Name: "test", Type: tt.typ, Instructions: tt.insns, GPLCompatible: true}
			res := verifier.Verify(&loader.Object{Path: "test"}, prog, verifier.Options{})
			if res.Err != nil {
				t.Fatalf("rejected: %v", res.Err)
			}
			if diff := cmp.Diff(tt.want, res.Stats.StackDepth); diff != "" {
				t.Errorf("stack depth (-want +got):\n%s", diff)
			}
		})
	}
}
