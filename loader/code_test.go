package loader

import (
	"slices"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// TestCode checks that Code is the decoding of the program's current
// instructions: the one made at Open while they are unchanged, a fresh
// one for a program given other instructions.
func TestCode(t *testing.T) {
	obj, err := Open("../testdata/progs/kconfig_version.o", Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := obj.Programs[0]
	changed := slices.Clone(p.Instructions)
	changed[0] = asm.Mov.Imm(asm.R0, 7)
	for _, tt := range []struct {
		name string
		prog *Program
	}{
		{"opened", p},
		{"same instructions", p.WithInstructions(p.Instructions)},
		{"other instructions", p.WithInstructions(changed)},
		{"truncated", p.WithInstructions(p.Instructions[:1])},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := insn.FromAsm(tt.prog.Instructions)
			got, err := tt.prog.Code()
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("Code() error %v, want %v", err, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Code() (-want +got):\n%s", diff)
			}
		})
	}
	if p.decoded == nil {
		t.Error("an opened program is not decoded at Open")
	}
}
