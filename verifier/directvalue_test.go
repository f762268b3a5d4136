package verifier_test

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/oracle"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestDirectValueAddress: the address of a map's value (an ld_imm64 of
// BPF_PSEUDO_MAP_VALUE) exists only for an array of one element, inside
// its value (resolve_pseudo_ldimm64 and the map's map_direct_value_addr).
// ELF objects cannot carry the other cases (loaders emit direct value
// loads only for global data), so the programs are built here; the
// expected messages are the live 6.18 kernel's, and where bpf() works the
// test asks the kernel again.
func TestDirectValueAddress(t *testing.T) {
	tests := []struct {
		name    string
		typ     ebpf.MapType
		entries uint32
		off     uint32
		// dead appends an instruction no path reaches: the map is
		// resolved before the CFG is checked.
		dead bool
		want string // "" for an accepted program
	}{
		{"array of one element", ebpf.Array, 1, 0, false, ""},
		{"last byte of the value", ebpf.Array, 1, 15, false, ""},
		{"one past the value", ebpf.Array, 1, 16, false, "invalid access to map value pointer, value_size=16 off=16"},
		{"array of four elements", ebpf.Array, 4, 0, false, "invalid access to map value pointer, value_size=16 off=0"},
		{"per-CPU array", ebpf.PerCPUArray, 1, 0, false, "no direct value access support for this map type"},
		{"hash", ebpf.Hash, 1, 0, false, "no direct value access support for this map type"},
		{"hash, then dead code", ebpf.Hash, 1, 0, true, "no direct value access support for this map type"},
		{"array, then dead code", ebpf.Array, 1, 0, true, "unreachable insn 4"},
		{"offset past the limit", ebpf.Array, 1, 1 << 29, false, "direct value offset of 536870912 is not allowed"},
	}
	withKernel := kernel.Available() == nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &loader.Object{Path: "direct-value", Maps: []*loader.Map{
				{Name: "m", Type: tt.typ, KeySize: 4, ValueSize: 16, MaxEntries: tt.entries}}}
			ins := asm.Instructions{asm.LoadMapValue(asm.R1, 0, tt.off), asm.Mov.Imm(asm.R0, 0), asm.Return()}
			if tt.dead {
				ins = append(ins, asm.Return())
			}
			prog := &loader.Program{Name: "direct_value", Type: ebpf.SocketFilter, GPLCompatible: true, Instructions: ins}
			res := verifier.Verify(obj, prog, verifier.Options{LogLevel: 1})
			if got := errMsg(res); got != tt.want {
				t.Errorf("vercheck: %q, want %q", got, tt.want)
			}
			if tt.want != "" && !strings.Contains(res.Log, tt.want+"\n") {
				// The kernel logs every such refusal.
				t.Errorf("the log lacks %q:\n%s", tt.want, res.Log)
			}
			if !withKernel {
				return
			}
			o := oracle.Judge(obj, prog, oracle.Options{})
			if o.Class != oracle.BothAccept && o.Class != oracle.BothReject {
				t.Errorf("kernel disagrees: %s: %s", o.Class, o.Reason())
			}
		})
	}
}
