package interp_test

import (
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/interp"
)

func mustProg(t *testing.T, ins asm.Instructions) []insn.Insn {
	t.Helper()
	// Marshal resolves jump and call labels in place.
	if err := ins.Marshal(io.Discard, binary.LittleEndian); err != nil {
		t.Fatalf("resolve labels: %v", err)
	}
	p, err := insn.FromAsm(ins)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return p
}

// raw builds one instruction from its fields, for encodings asm has no
// constructor for.
func raw(op asm.OpCode, dst, src asm.Register, off int16, imm int64) asm.Instruction {
	return asm.Instruction{OpCode: op, Dst: dst, Src: src, Offset: off, Constant: imm}
}

func xdpInput(pkt []byte, meta int) *interp.Input {
	return &interp.Input{
		Ctx:       make([]byte, 24),
		CtxFields: interp.XDPFields,
		Packet:    pkt,
		MetaLen:   meta,
		Maps:      []interp.Map{{KeySize: 4, ValueSize: 8, Values: [][]byte{{1, 2, 3, 4, 5, 6, 7, 8}}}},
	}
}

// result is what a test compares: r0 or the violation kind and pc.
type result struct {
	R0        string
	Violation string
	PC        int
}

func run(t *testing.T, ins asm.Instructions, in *interp.Input) result {
	t.Helper()
	res, err := interp.Run(mustProg(t, ins), in)
	var v *interp.Violation
	if errors.As(err, &v) {
		return result{Violation: v.Kind, PC: v.PC}
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return result{R0: res.R0.String()}
}

func TestALU(t *testing.T) {
	alu64 := func(op asm.ALUOp) asm.OpCode { return asm.OpCode(asm.ALU64Class).SetALUOp(op).SetSource(asm.RegSource) }
	alu32 := func(op asm.ALUOp) asm.OpCode { return asm.OpCode(asm.ALUClass).SetALUOp(op).SetSource(asm.RegSource) }
	tests := []struct {
		name    string
		op      asm.OpCode
		off     int16
		a, b, w uint64
	}{
		{"add", alu64(asm.Add), 0, 1, 2, 3},
		{"sub wraps", alu64(asm.Sub), 0, 1, 2, ^uint64(0)},
		{"div by zero", alu64(asm.Div), 0, 7, 0, 0},
		{"mod by zero keeps dst", alu64(asm.Mod), 0, 7, 0, 7},
		{"sdiv", alu64(asm.SDiv), 0, uint64(^uint64(6)), 2, uint64(^uint64(2))}, // -7/2 = -3
		{"smod", alu64(asm.SMod), 0, uint64(^uint64(6)), 2, ^uint64(0)},         // -7%2 = -1
		{"sdiv overflow", alu64(asm.SDiv), 0, 1 << 63, ^uint64(0), 1 << 63},
		{"lsh masks", alu64(asm.LSh), 0, 1, 65, 2},
		{"arsh", alu64(asm.ArSh), 0, 1 << 63, 63, ^uint64(0)},
		{"add32 zero-extends", alu32(asm.Add), 0, 0xffffffff, 1, 0},
		{"mod32 by zero truncates", alu32(asm.Mod), 0, 0x1_0000_0005, 0, 5},
		{"sdiv32", alu32(asm.SDiv), 0, 0xfffffff9, 2, 0xfffffffd},
		{"arsh32", alu32(asm.ArSh), 0, 0x80000000, 31, 0xffffffff},
		{"movsx8", alu64(asm.MovSX8), 0, 0, 0x80, 0xffffffffffffff80},
		{"movsx32 from 16", alu32(asm.MovSX16), 0, 0, 0x8000, 0xffff8000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := asm.Instructions{
				asm.LoadImm(asm.R0, int64(tt.a), asm.DWord),
				asm.LoadImm(asm.R2, int64(tt.b), asm.DWord),
				raw(tt.op, asm.R0, asm.R2, tt.off, 0),
				asm.Return(),
			}
			want := result{R0: interp.ScalarOf(tt.w).String()}
			if diff := cmp.Diff(want, run(t, prog, xdpInput(nil, 0))); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEndian(t *testing.T) {
	tests := []struct {
		name string
		op   asm.OpCode
		imm  int64
		want uint64
	}{
		{"be16", asm.OpCode(asm.ALUClass).SetALUOp(asm.Swap).SetSource(asm.RegSource), 16, 0x0102},
		{"le32 truncates", asm.OpCode(asm.ALUClass).SetALUOp(asm.Swap), 32, 0x04030201},
		{"bswap64", asm.OpCode(asm.ALU64Class).SetALUOp(asm.Swap), 64, 0x0102030405060708},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := asm.Instructions{
				asm.LoadImm(asm.R0, 0x0807060504030201, asm.DWord),
				raw(tt.op, asm.R0, 0, 0, tt.imm),
				asm.Return(),
			}
			if diff := cmp.Diff(result{R0: interp.ScalarOf(tt.want).String()}, run(t, prog, xdpInput(nil, 0))); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemory(t *testing.T) {
	lookup := asm.Instructions{
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.LoadMapPtr(asm.R1, 0),
		asm.FnMapLookupElem.Call(),
	}
	pkt := asm.Instructions{
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Word),
		asm.LoadMem(asm.R3, asm.R1, 4, asm.Word),
		asm.Mov.Reg(asm.R4, asm.R2),
		asm.Add.Imm(asm.R4, 4),
	}
	cat := func(parts ...asm.Instructions) asm.Instructions {
		var out asm.Instructions
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	hit := func(in *interp.Input) *interp.Input {
		in.Choose = func(c interp.Choice) uint64 {
			if c.Helper == 1 {
				return 0
			}
			return 0xdeadbeef
		}
		return in
	}
	tests := []struct {
		name string
		prog asm.Instructions
		in   *interp.Input
		want result
	}{
		{"uninit register", asm.Instructions{asm.Mov.Reg(asm.R0, asm.R5), asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.UninitRead, PC: 0}},
		{"uninit r0 at exit", asm.Instructions{asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.UninitRead, PC: 0}},
		{"uninit stack", asm.Instructions{asm.LoadMem(asm.R0, asm.RFP, -8, asm.DWord), asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.UninitRead, PC: 0}},
		{"partly init stack", asm.Instructions{asm.StoreImm(asm.RFP, -8, 1, asm.Word), asm.LoadMem(asm.R0, asm.RFP, -8, asm.DWord), asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.UninitRead, PC: 1}},
		{"stack below 512", asm.Instructions{raw(asm.StoreImmOp(asm.DWord), asm.RFP, 0, -520, 1), asm.Mov.Imm(asm.R0, 0), asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.OutOfBounds, PC: 0}},
		{"stack at fp", asm.Instructions{asm.StoreImm(asm.RFP, 0, 1, asm.Byte), asm.Mov.Imm(asm.R0, 0), asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.OutOfBounds, PC: 0}},
		{"spill and fill a pointer", asm.Instructions{
			asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
			asm.LoadMem(asm.R0, asm.RFP, -8, asm.DWord),
			asm.Return()}, xdpInput(nil, 0), result{R0: "ctx+0"}},
		{"ctx out of bounds", asm.Instructions{asm.LoadMem(asm.R0, asm.R1, 24, asm.Word), asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.OutOfBounds, PC: 0}},
		{"ctx write", asm.Instructions{asm.StoreImm(asm.R1, 12, 0, asm.Word), asm.Mov.Imm(asm.R0, 0), asm.Return()}, xdpInput(nil, 0),
			result{Violation: interp.BadPointer, PC: 0}},
		{"lookup miss, no null check", cat(lookup, asm.Instructions{asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord), asm.Return()}), xdpInput(nil, 0),
			result{Violation: interp.BadPointer, PC: 6}},
		{"lookup hit", cat(lookup, asm.Instructions{asm.LoadMem(asm.R0, asm.R0, 0, asm.Byte), asm.Return()}), hit(xdpInput(nil, 0)),
			result{R0: "0x1"}},
		{"map value overflow", cat(lookup, asm.Instructions{asm.LoadMem(asm.R0, asm.R0, 4, asm.DWord), asm.Return()}), hit(xdpInput(nil, 0)),
			result{Violation: interp.OutOfBounds, PC: 6}},
		{"args clobbered by helper", cat(lookup, asm.Instructions{asm.Mov.Reg(asm.R0, asm.R2), asm.Return()}), hit(xdpInput(nil, 0)),
			result{Violation: interp.UninitRead, PC: 6}},
		{"packet bounds check taken", cat(pkt, asm.Instructions{
			asm.Mov.Imm(asm.R0, 1),
			asm.JGT.Reg(asm.R4, asm.R3, "out"),
			asm.LoadMem(asm.R0, asm.R2, 3, asm.Byte),
			asm.Return().WithSymbol("out")}), xdpInput([]byte{9, 1, 2, 3, 4}, 1), result{R0: "0x4"}},
		{"packet too short", cat(pkt, asm.Instructions{asm.LoadMem(asm.R0, asm.R2, 3, asm.Byte), asm.Return()}), xdpInput([]byte{9, 1, 2}, 1),
			result{Violation: interp.OutOfBounds, PC: 4}},
		{"packet before data", cat(pkt, asm.Instructions{asm.LoadMem(asm.R0, asm.R2, -1, asm.Byte), asm.Return()}), xdpInput([]byte{9, 1, 2}, 1),
			result{Violation: interp.OutOfBounds, PC: 4}},
		{"bpf-to-bpf call", asm.Instructions{
			asm.Mov.Imm(asm.R1, 20),
			asm.Mov.Imm(asm.R6, 3),
			asm.Call.Label("f"),
			asm.Add.Reg(asm.R0, asm.R6),
			asm.Return(),
			asm.Mov.Reg(asm.R0, asm.R1).WithSymbol("f"),
			asm.Add.Imm(asm.R0, 1),
			asm.Return()}, xdpInput(nil, 0), result{R0: "0x18"}},
		{"callee-saved are uninit in callee", asm.Instructions{
			asm.Mov.Imm(asm.R6, 3),
			asm.Call.Label("f"),
			asm.Return(),
			asm.Mov.Reg(asm.R0, asm.R6).WithSymbol("f"),
			asm.Return()}, xdpInput(nil, 0), result{Violation: interp.UninitRead, PC: 3}},
		{"atomic fetch add", asm.Instructions{
			raw(asm.StoreImmOp(asm.DWord), asm.RFP, 0, -8, 5),
			asm.Mov.Imm(asm.R2, 2),
			raw(asm.OpCode(asm.StXClass).SetMode(asm.AtomicMode).SetSize(asm.DWord), asm.RFP, asm.R2, -8, int64(insn.AtomicAdd|insn.AtomicFetch)),
			asm.LoadMem(asm.R0, asm.RFP, -8, asm.DWord),
			asm.Add.Reg(asm.R0, asm.R2),
			asm.Return()}, xdpInput(nil, 0), result{R0: "0xc"}},
		{"ldsx", asm.Instructions{
			asm.StoreImm(asm.RFP, -8, 0xff, asm.Byte),
			raw(asm.OpCode(asm.LdXClass).SetMode(asm.MemSXMode).SetSize(asm.Byte), asm.R0, asm.RFP, -8, 0),
			asm.Return()}, xdpInput(nil, 0), result{R0: "0xffffffffffffffff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, run(t, tt.prog, tt.in)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStepLimit(t *testing.T) {
	prog := asm.Instructions{asm.Ja.Label("self").WithSymbol("self")}
	in := xdpInput(nil, 0)
	in.MaxSteps = 100
	if diff := cmp.Diff(result{Violation: interp.StepLimit, PC: 0}, run(t, prog, in)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestKernelAddresses: with a bias the interpreter's pointers behave like
// the kernel's, including a map value whose low 32 bits are zero, and a
// sign-extending load of a context pointer field is a safety violation.
func TestKernelAddresses(t *testing.T) {
	lookupThenJmp32 := asm.Instructions{
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.LoadMapPtr(asm.R1, 0),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "null"),
		// w0 == 0 on a non-NULL pointer: true when its low half is 0.
		asm.JEq.Imm32(asm.R0, 0, "low_zero"),
		asm.Mov.Imm(asm.R0, 1),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 2).WithSymbol("low_zero"),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 3).WithSymbol("null"),
		asm.Return(),
	}
	hit := func(in *interp.Input) *interp.Input {
		in.Choose = func(interp.Choice) uint64 { return 0 }
		return in
	}
	aligned := hit(xdpInput(nil, 0))
	aligned.AddrBias = interp.AlignedBias(interp.Value{Kind: interp.PtrMapValue}, aligned)
	kernelLike := hit(xdpInput(nil, 0))
	kernelLike.AddrBias = interp.KernelAddrBase
	tests := []struct {
		name string
		prog asm.Instructions
		in   *interp.Input
		want result
	}{
		{"low half never zero without a bias", lookupThenJmp32, hit(xdpInput(nil, 0)), result{R0: "0x1"}},
		{"kernel-like bias", lookupThenJmp32, kernelLike, result{R0: "0x1"}},
		{"aligned map value", lookupThenJmp32, aligned, result{R0: "0x2"}},
		{"sign-extending load of ctx->data", asm.Instructions{
			asm.LoadMemSX(asm.R2, asm.R1, 0, asm.Word),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		}, xdpInput(make([]byte, 8), 0), result{Violation: interp.Mangled, PC: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, run(t, tt.prog, tt.in)); diff != "" {
				t.Errorf("run mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
