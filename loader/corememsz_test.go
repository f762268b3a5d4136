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
// relocates it; with CiliumCORE it keeps its size, as cilium/ebpf
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
		name string
		opts Options
		want map[string]string
	}{
		{"libbpf", Options{}, map[string]string{
			"s36_narrow_u16_load":   "Word",
			"s36_wide_u64_load":     "Word",
			"s36_wide_u64_store":    "Word",
			"s36_same_size_signed":  "Word",
			"s36_signed_int_load":   "poisoned",
			"s36_unsigned_u32_load": "DWord",
		}},
		{"cilium", Options{CiliumCORE: true}, map[string]string{
			"s36_narrow_u16_load":   "Half",
			"s36_wide_u64_load":     "DWord",
			"s36_wide_u64_store":    "DWord",
			"s36_same_size_signed":  "Word",
			"s36_signed_int_load":   "Word",
			"s36_unsigned_u32_load": "Word",
		}},
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
		})
	}
}

// TestCOREMemSizeRefused: an access whose size is not the local field's
// cannot be resized; libbpf refuses the object ("unexpected mem size").
func TestCOREMemSizeRefused(t *testing.T) {
	u16 := &btf.Int{Name: "__u16", Size: 2}
	u32 := &btf.Int{Name: "__u32", Size: 4}
	ins := asm.LoadMem(asm.R0, asm.R1, 8, asm.Byte)
	err := adjustMemSize(&ins, &btf.CORERelocation{}, 2, 4, u16, u32)
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("a one-byte load of a two-byte field resized: %v", err)
	}
	ins = asm.LoadMem(asm.R0, asm.R1, 8, asm.Half)
	if err := adjustMemSize(&ins, &btf.CORERelocation{}, 2, 4, u16, u32); err != nil || ins.OpCode.Size() != asm.Word {
		t.Errorf("a two-byte load of a __u16 against a __u32: %v, size %v", err, ins.OpCode.Size())
	}
}
