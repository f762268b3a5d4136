package verifier

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestIterBufferAccess checks the key (read-only) and value buffers of an
// iterator over map elements (PTR_TO_BUF, check_buffer_access). Their size
// is unknown until the iterator is attached, so the kernel's verifier asks
// only for a constant, non-negative offset. The machine this project checks
// against refuses to load bpf_map_elem iterators (EPERM), so the cases
// follow the 6.18 source; the golden file keeps two of its programs from a
// kernel that loaded them (btfprog_iter.c).
func TestIterBufferAccess(t *testing.T) {
	prog := func(insns ...asm.Instruction) *loader.Program {
		return &loader.Program{Name: "p", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceIter,
			AttachTo: "bpf_map_elem", Section: "iter/bpf_map_elem", GPLCompatible: true, Instructions: insns}
	}
	// The key in r3 and the value in r4, both checked for NULL, then
	// insns, then "r0 = 0; exit".
	body := func(insns ...asm.Instruction) *loader.Program {
		n := int16(len(insns))
		all := []asm.Instruction{
			asm.LoadMem(asm.R3, asm.R1, 16, asm.DWord),
			asm.LoadMem(asm.R4, asm.R1, 24, asm.DWord),
			skipIfNull(asm.R3, n+1),
			skipIfNull(asm.R4, n),
		}
		all = append(append(all, insns...), asm.Mov.Imm(asm.R0, 0), asm.Return())
		return prog(all...)
	}
	tests := []struct {
		name string
		prog *loader.Program
		want string
		msg  string
	}{
		{"read the key", body(asm.LoadMem(asm.R0, asm.R3, 4, asm.Word)), "accepted", ""},
		{"write the value far out", body(asm.StoreImm(asm.R4, 4096, 1, asm.Word)), "accepted", ""},
		{"write the key", body(asm.StoreImm(asm.R3, 0, 1, asm.Word)), "rejected", "R3 cannot write into rdonly_buf"},
		{"read before the key", body(asm.LoadMem(asm.R0, asm.R3, -4, asm.Word)), "rejected",
			"R3 invalid rdonly buffer access: off=-4, size=4"},
		{"write before the value", body(asm.Add.Imm(asm.R4, -8), asm.StoreImm(asm.R4, 0, 1, asm.Word)), "rejected",
			"R4 invalid rdwr buffer access: off=-8, size=4"},
		{"variable offset", body(
			asm.LoadMem(asm.R5, asm.R3, 0, asm.Byte), asm.And.Imm(asm.R5, 7), asm.Add.Reg(asm.R4, asm.R5),
			asm.LoadMem(asm.R0, asm.R4, 0, asm.Byte)), "rejected", "R4 invalid variable buffer offset: off=0, var_off=(0x0; 0x7)"},
		{"value as helper memory", body(
			asm.Mov.Reg(asm.R1, asm.R4), asm.Mov.Imm(asm.R2, 16), asm.Mov.Imm(asm.R3, 0), asm.FnProbeReadKernel.Call()),
			"accepted", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verifyInsns(t, tt.prog)
			if !strings.Contains(got.Msg, tt.msg) || (tt.msg == "" && got.Msg != "") {
				t.Errorf("message %q does not contain %q", got.Msg, tt.msg)
			}
			if diff := cmp.Diff(tt.want, got.Verdict); diff != "" {
				t.Errorf("verdict mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
