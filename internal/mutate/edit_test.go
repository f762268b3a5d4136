package mutate

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// Instruction constructors for the tables.
func mov(dst uint8, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | insn.ALUMov, Dst: dst, Imm: imm}
}

func jeq(dst uint8, imm int32, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | insn.JmpJEQ, Dst: dst, Imm: imm, Off: off}
}

func ja(off int16) insn.Insn { return insn.Insn{Op: insn.ClassJMP | insn.JmpJA, Off: off} }

func gotol(off int32) insn.Insn { return insn.Insn{Op: insn.ClassJMP32 | insn.JmpJA, Imm: off} }

func call(off int32) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Src: insn.PseudoCall, Imm: off}
}

func helper(id int32) insn.Insn { return insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Imm: id} }

func exit() insn.Insn { return insn.Insn{Op: insn.ClassJMP | insn.JmpExit} }

// ldImm64 returns both slots of a 64-bit constant load.
func ldImm64(dst uint8, lo, hi int32) []insn.Insn {
	return []insn.Insn{
		{Op: insn.ClassLD | insn.ModeIMM | insn.SizeDW, Dst: dst, Imm: lo, Imm2: hi},
		{Filler: true, Imm: hi},
	}
}

func prog(parts ...any) []insn.Insn {
	var out []insn.Insn
	for _, p := range parts {
		switch p := p.(type) {
		case insn.Insn:
			out = append(out, p)
		case []insn.Insn:
			out = append(out, p...)
		}
	}
	return out
}

// TestApply checks the splicing of each kind of edit: jumps, gotols, calls
// across the seam are fixed up; jumps into a deleted instruction land on
// its successor; jumps to an insertion point run the inserted code.
func TestApply(t *testing.T) {
	tests := []struct {
		name   string
		prog   []insn.Insn
		edit   edit
		want   []insn.Insn
		origin []int
		target []int
	}{
		{
			name:   "rewrite in place moves nothing",
			prog:   prog(jeq(1, 0, 1), mov(0, 1), exit()),
			edit:   rewrite(1, mov(0, 2)),
			want:   prog(jeq(1, 0, 1), mov(0, 2), exit()),
			origin: []int{0, 1, 2},
			target: []int{0, 1, 2, 3},
		},
		{
			name:   "insertion: jumps to the point run the new code",
			prog:   prog(jeq(1, 0, 1), mov(0, 1), exit()),
			edit:   insertion(2, ja(0)),
			want:   prog(jeq(1, 0, 1), mov(0, 1), ja(0), exit()),
			origin: []int{0, 1, -1, 2},
			target: []int{0, 1, 2, 4},
		},
		{
			name:   "insertion before a backward jump's target",
			prog:   prog(mov(0, 1), mov(1, 2), jeq(1, 0, -2), exit()),
			edit:   insertion(1, mov(2, 3)),
			want:   prog(mov(0, 1), mov(2, 3), mov(1, 2), jeq(1, 0, -3), exit()),
			origin: []int{0, -1, 1, 2, 3},
			target: []int{0, 1, 3, 4, 5},
		},
		{
			name:   "deletion: jumps into it land on its successor",
			prog:   prog(jeq(1, 0, 1), mov(0, 1), mov(0, 2), exit()),
			edit:   deletion(1, 1),
			want:   prog(jeq(1, 0, 0), mov(0, 2), exit()),
			origin: []int{0, 2, 3},
			target: []int{0, 1, 1, 2, 3},
		},
		{
			name:   "deleting an ld_imm64 fixes gotol and call",
			prog:   prog(gotol(2), ldImm64(2, 1, 2), call(1), exit(), mov(0, 0), exit()),
			edit:   deletion(1, 2),
			want:   prog(gotol(0), call(1), exit(), mov(0, 0), exit()),
			origin: []int{0, 3, 4, 5, 6},
			target: []int{0, 1, 1, 1, 2, 3, 4, 5},
		},
		{
			name:   "helper calls and exits are no jumps",
			prog:   prog(helper(7), exit()),
			edit:   insertion(0, mov(0, 0)),
			want:   prog(mov(0, 0), helper(7), exit()),
			origin: []int{-1, 0, 1},
			target: []int{0, 2, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Identity(tt.prog).apply(tt.edit, "test")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Insns); diff != "" {
				t.Errorf("instructions mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.origin, got.Origin); diff != "" {
				t.Errorf("origin mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.target, got.Target); diff != "" {
				t.Errorf("target mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyRefuses: an edit may not split an ld_imm64 or empty the
// program, and a fixed-up jump must still fit its 16-bit field.
func TestApplyRefuses(t *testing.T) {
	long := make([]insn.Insn, 0, 1<<15+2)
	long = append(long, ja(1<<15-1))
	for range 1<<15 - 1 {
		long = append(long, mov(0, 0))
	}
	long = append(long, exit())
	tests := []struct {
		name string
		prog []insn.Insn
		edit edit
	}{
		{"delete a second half", prog(ldImm64(1, 1, 1), exit()), deletion(1, 1)},
		{"insert between the halves", prog(ldImm64(1, 1, 1), exit()), insertion(1, mov(0, 0))},
		{"jump grows out of range", long, insertion(1, mov(0, 0))},
		{"nothing left", prog(exit()), deletion(0, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Identity(tt.prog)
			got, err := m.apply(tt.edit, "test")
			if !errors.Is(err, errBadEdit) {
				t.Errorf("error %v, want errBadEdit", err)
			}
			if diff := cmp.Diff(m.Insns, got.Insns); diff != "" {
				t.Errorf("refused edit changed the program (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyComposes: origins and targets compose over several edits.
func TestApplyComposes(t *testing.T) {
	m := Identity(prog(mov(0, 1), mov(1, 1), mov(2, 1), exit()))
	m, err := m.apply(deletion(1, 1), "delete")
	if err != nil {
		t.Fatal(err)
	}
	m, err = m.apply(insertion(0, ja(0)), "insert")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{-1, 0, 2, 3}, m.Origin); diff != "" {
		t.Errorf("origin mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 2, 2, 3, 4}, m.Target); diff != "" {
		t.Errorf("target mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"delete", "insert"}, m.Changes); diff != "" {
		t.Errorf("changes mismatch (-want +got):\n%s", diff)
	}
}
