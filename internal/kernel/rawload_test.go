package kernel

import (
	"fmt"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// TestJumpSequenceTooComplexIsAVerdict: the kernel fails a program whose
// pending branches pass 8192 with EFAULT, and cilium/ebpf drops that log;
// the raw reload recovers it, so the result is a rejection with the
// kernel's message, not a program the kernel could not load.
func TestJumpSequenceTooComplexIsAVerdict(t *testing.T) {
	skipUnlessAvailable(t)
	insns := asm.Instructions{asm.FnGetPrandomU32.Call()}
	for i := range 8200 {
		label := fmt.Sprintf("l%d", i)
		insns = append(insns, asm.JEq.Imm(asm.R0, int32(i), label), asm.Mov.Imm(asm.R1, int32(i)), asm.Mov.Imm(asm.R2, 0).WithSymbol(label))
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
	spec := &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{
		"jumps": {Name: "jumps", Type: ebpf.XDP, License: "GPL", Instructions: insns},
	}}
	got, err := LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].NotLoaded || got[0].Accepted || got[0].Err != "The sequence of 8193 jumps is too complex." {
		t.Errorf("LoadCollectionSpec = %+v, want a rejection with the kernel's message", got)
	}
}
