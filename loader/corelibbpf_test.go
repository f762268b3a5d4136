package loader

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

// TestCOREMemSize: a CO-RE load or store of a field whose kernel size
// differs from the object's declaration takes the kernel's size where both
// are unsigned integers, and is poisoned where one is signed, as libbpf
// relocates it; with CiliumLinking it keeps its size, as cilium/ebpf
// relocates it.
func TestCOREMemSize(t *testing.T) {
	if _, err := btf.LoadKernelSpec(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	// The first load or store (or poisoned call) of each program.
	access := func(obj *Object) map[string]string {
		got := map[string]string{}
		for _, p := range obj.Programs {
			for _, ins := range p.Instructions {
				switch {
				case ins.IsBuiltinCall() && ins.Constant == btf.COREBadRelocationSentinel:
					got[p.Name] = "poisoned"
				case ins.OpCode.Class() == asm.LdXClass, ins.OpCode.Class() == asm.StXClass, ins.OpCode.Class() == asm.StClass:
					got[p.Name] = ins.OpCode.Size().String()
				default:
					continue
				}
				break
			}
		}
		return got
	}
	tests := []struct {
		name      string
		opts      Options
		want      map[string]string
		otherwise []string
	}{
		{"libbpf", Options{}, map[string]string{
			"s36_narrow_u16_load":   "Word",
			"s36_wide_u64_load":     "Word",
			"s36_wide_u64_store":    "Word",
			"s36_same_size_signed":  "Word",
			"s36_signed_int_load":   "poisoned",
			"s36_unsigned_u32_load": "DWord",
		}, []string{"s36_narrow_u16_load", "s36_wide_u64_load", "s36_wide_u64_store", "s36_signed_int_load", "s36_unsigned_u32_load"}},
		{"cilium", Options{CiliumLinking: true}, map[string]string{
			"s36_narrow_u16_load":   "Half",
			"s36_wide_u64_load":     "DWord",
			"s36_wide_u64_store":    "DWord",
			"s36_same_size_signed":  "Word",
			"s36_signed_int_load":   "Word",
			"s36_unsigned_u32_load": "Word",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := Open("../testdata/progs/s36_core_memsz.o", tt.opts)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if diff := cmp.Diff(tt.want, access(obj)); diff != "" {
				t.Errorf("access sizes (-want +got):\n%s", diff)
			}
			// Under libbpf's relocation, a program cilium/ebpf
			// relocates otherwise keeps cilium/ebpf's as well.
			var other []string
			for _, p := range obj.Programs {
				if p.CiliumRelocated != nil {
					other = append(other, p.Name)
					if p.WithInstructions(p.Instructions).CiliumRelocated != nil {
						t.Errorf("%s: a rewritten program keeps the original's other relocation", p.Name)
					}
				}
			}
			if diff := cmp.Diff(tt.otherwise, other); diff != "" {
				t.Errorf("programs relocated otherwise by cilium/ebpf (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCOREMemSizeRefused: an access whose size is not the local field's
// cannot be resized; libbpf refuses the object ("unexpected mem size"),
// and a field of no load size ("invalid new mem size").
func TestCOREMemSizeRefused(t *testing.T) {
	tests := []struct {
		size     asm.Size
		from, to int
		want     asm.Size
		refused  bool
	}{
		{asm.Byte, 2, 4, 0, true},
		{asm.Half, 2, 4, asm.Word, false},
		{asm.DWord, 8, 4, asm.Word, false},
		{asm.Word, 4, 16, 0, true},
	}
	for _, tt := range tests {
		ins := asm.LoadMem(asm.R0, asm.R1, 8, tt.size)
		err := resizeAccess(&ins, tt.from, tt.to)
		if tt.refused {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("%v access of a %d-byte field resized to %d bytes: %v", tt.size, tt.from, tt.to, err)
			}
			continue
		}
		if err != nil || ins.OpCode.Size() != tt.want {
			t.Errorf("%v access of a %d-byte field resized to %d bytes: %v, size %v", tt.size, tt.from, tt.to, err, ins.OpCode.Size())
		}
	}
}
