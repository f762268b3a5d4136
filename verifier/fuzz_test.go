package verifier_test

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// FuzzVerify runs the verifier on arbitrary bytecode as a socket filter
// with one hash map: it must never panic (an internal error is reported as
// a result, not a crash) and must stop within its limits.
func FuzzVerify(f *testing.F) {
	seeds := []asm.Instructions{
		{asm.Mov.Imm(asm.R0, 0), asm.Return()},
		{asm.LoadMem(asm.R0, asm.R1, 0, asm.Word), asm.Return()},
		{asm.Mov.Imm(asm.R0, 0), {OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JEq).SetSource(asm.ImmSource), Dst: asm.R0, Offset: 1}, asm.Mov.Imm(asm.R0, 1), asm.Return()},
		{asm.Mov.Imm(asm.R3, 0), asm.StoreMem(asm.RFP, -8, asm.R3, asm.DWord), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.LoadMapPtr(asm.R1, 0), asm.FnMapLookupElem.Call(), asm.Mov.Imm(asm.R0, 0), asm.Return()},
	}
	for i, s := range seeds {
		var buf bytes.Buffer
		if err := s.Marshal(&buf, binary.LittleEndian); err != nil {
			f.Fatalf("seed %d: %v", i, err)
		}
		f.Add(buf.Bytes())
	}
	obj := &loader.Object{Path: "fuzz", Maps: []*loader.Map{{Name: "m", Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 16}}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ins, err := asm.AppendInstructions(nil, bytes.NewReader(raw), binary.LittleEndian, "linux")
		if err != nil || len(ins) == 0 {
			return
		}
		prog := &loader.Program{Name: "fuzz", Type: ebpf.SocketFilter, Instructions: ins, GPLCompatible: true}
		res := verifier.Verify(obj, prog, verifier.Options{Timeout: 2 * time.Second})
		if res.Err != nil && res.Verdict() == "error" {
			t.Fatalf("internal error: %v", res.Err)
		}
	})
}
