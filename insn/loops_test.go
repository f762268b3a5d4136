package insn

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoops(t *testing.T) {
	tests := []struct {
		name string
		prog []Insn
		want []Loop
	}{
		{"no loop", prog(movImm(R0, 0), jmpImm(JmpJEQ, R0, 0, 0), exit()), nil},
		{"do-while", prog(movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2), exit()),
			[]Loop{{SCC: 1, Header: 1, Insns: []int{1, 2}}}},
		{"self loop", prog(movImm(R0, 0), jmpImm(JmpJLT, R0, 10, -1), exit()),
			[]Loop{{SCC: 1, Header: 1, Insns: []int{1}}}},
		// while (r0 < 10) r0++: the test at 1 is entered from 0, the
		// body at 3 jumps back to it.
		{"while", prog(movImm(R0, 0), jmpImm(JmpJGE, R0, 10, 2), aluImm(ALUAdd, R0, 1), ja(-3), exit()),
			[]Loop{{SCC: 1, Header: 1, Insns: []int{1, 2, 3}}}},
		{"two loops", prog(
			movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2),
			aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 20, -2), exit()),
			[]Loop{{SCC: 1, Header: 3, Insns: []int{3, 4}}, {SCC: 2, Header: 1, Insns: []int{1, 2}}}},
		{"loop at the program start", prog(aluImm(ALUAdd, R1, 1), jmpImm(JmpJLT, R1, 10, -2), movImm(R0, 0), exit()),
			[]Loop{{SCC: 1, Header: 0, Insns: []int{0, 1}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Analyze(tc.prog)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, g.Loops()); diff != "" {
				t.Errorf("Loops mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
