package insn

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		raw  []byte
		want []Insn
		err  error
	}{
		{"mov and exit", []byte{
			0xb7, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, // r0 = 42
			0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // exit
		}, []Insn{{Op: 0xb7, Imm: 42}, {Op: 0x95}}, nil},
		{"registers and offset", []byte{
			0x7b, 0xa1, 0xf8, 0xff, 0x00, 0x00, 0x00, 0x00, // *(u64 *)(r1 -8) = r10
		}, []Insn{{Op: 0x7b, Dst: 1, Src: 10, Off: -8}}, nil},
		{"ld_imm64", []byte{
			0x18, 0x11, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, // r1 = map[id:3] low
			0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, // high half: 16
			0x95, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		}, []Insn{
			{Op: 0x18, Dst: 1, Src: PseudoMapFD, Imm: 3, Imm2: 16},
			{Filler: true, Imm: 16},
			{Op: 0x95},
		}, nil},
		{"register 15 kept", []byte{0xbf, 0xff, 0, 0, 0, 0, 0, 0},
			[]Insn{{Op: 0xbf, Dst: 15, Src: 15}}, nil},
		{"empty", []byte{}, []Insn{}, nil},
		{"short", []byte{0x95, 0, 0}, nil, ErrBadLength},
		{"truncated ld_imm64", []byte{0x18, 0x01, 0, 0, 1, 0, 0, 0}, nil, ErrTruncatedLdImm64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.raw)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Decode() error = %v, want %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decode() mismatch (-want +got):\n%s", diff)
			}
			if err == nil {
				if diff := cmp.Diff(tc.raw, Encode(got)); diff != "" {
					t.Errorf("Encode(Decode()) mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestFromAsm(t *testing.T) {
	insns := asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference("m"),
		asm.Mov.Imm(asm.R0, 0),
		asm.SDiv.Imm(asm.R0, 3),
		asm.MovSX8.Reg(asm.R2, asm.R0),
		// r3 = addr_space_cast(r2, 0, 1): off 1, which Marshal drops.
		{OpCode: asm.Mov.Op(asm.RegSource), Dst: asm.R3, Src: asm.R2, Offset: 1, Constant: 1},
		asm.FnGetPrandomU32.Call(),
		// A loader's placeholder helper, which Marshal refuses.
		asm.BuiltinFunc(0xffffffff).Call(),
		asm.Return(),
	}
	// The loader puts the map index in the constant.
	insns[0].Constant = 2
	got, err := FromAsm(insns)
	if err != nil {
		t.Fatal(err)
	}
	want := []Insn{
		{Op: 0x18, Dst: 1, Src: PseudoMapFD, Imm: 2},
		{Filler: true},
		{Op: 0xb7},
		{Op: 0x37, Off: OffSigned, Imm: 3},
		{Op: 0xbf, Dst: 2, Off: 8},
		{Op: 0xbf, Dst: 3, Src: 2, Off: OffAddrSpaceCast, Imm: 1},
		{Op: 0x85, Imm: 7},
		{Op: 0x85, Imm: -1},
		{Op: 0x95},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromAsm() mismatch (-want +got):\n%s", diff)
	}
	if c := insns[6].Constant; uint32(c) != 0xffffffff {
		t.Errorf("FromAsm changed the placeholder's constant to %#x", c)
	}
}

// FuzzDecode checks that decoding and analysing arbitrary bytecode never
// panics or hangs, and that every accepted program has consistent facts.
func FuzzDecode(f *testing.F) {
	for _, tc := range validateCases {
		f.Add(Encode(tc.prog))
	}
	f.Add(Encode(loopCallbackProg))
	f.Fuzz(func(t *testing.T, raw []byte) {
		prog, err := Decode(raw)
		if err != nil {
			return
		}
		_ = Validate(prog)
		for _, in := range prog {
			_ = in.String()
		}
		g, err := Analyze(prog)
		if err != nil {
			return
		}
		for i := 0; i < g.Len(); i++ {
			s := g.SubprogOf(i)
			if s < 0 || i < g.Subprogs[s].Start || i >= g.Subprogs[s].End {
				t.Fatalf("insn %d: SubprogOf = %d outside %v", i, s, g.Subprogs)
			}
			if prog[i].Filler && g.LiveRegsBefore(i) != 0 {
				t.Fatalf("filler %d has live registers", i)
			}
		}
	})
}

// TestSizeof guards the size of Insn, which programs hold densely.
func TestSizeof(t *testing.T) {
	const want = 16
	if got := unsafe.Sizeof(Insn{}); got != want {
		t.Errorf("unsafe.Sizeof(Insn{}) = %d, want %d", got, want)
	}
}
