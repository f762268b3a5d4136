package mutate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// mapLoad returns both slots of an ld_imm64 of map idx (src PseudoMapFD
// or PseudoMapValue, with value offset off).
func mapLoad(dst, src uint8, idx, off int32) []insn.Insn {
	p := ldImm64(dst, idx, off)
	p[0].Src = src
	return p
}

func kfunc(id int32, module int16) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Src: insn.PseudoKfuncCall, Imm: id, Off: module}
}

func funcAddr(dst uint8, rel int32) []insn.Insn {
	p := ldImm64(dst, rel, 0)
	p[0].Src = insn.PseudoFunc
	return p
}

// TestObjectOperators checks the operators that change what a program
// refers to: maps, value offsets, callees and kfuncs.
func TestObjectOperators(t *testing.T) {
	env := Env{ValueSizes: []int{16, -1, 4}, Kfuncs: []insn.Insn{kfunc(70, 0), kfunc(71, 2)}}
	fd := prog(mapLoad(1, insn.PseudoMapFD, 0, 0), exit())
	value := prog(mapLoad(1, insn.PseudoMapValue, 2, 0), exit())
	// main calls the subprogram at 4 and takes the address of the one at 5.
	calls := prog(call(3), funcAddr(2, 3), exit(), exit(), exit())
	tests := []struct {
		name string
		fn   func(Env, []insn.Insn, int) []edit
		prog []insn.Insn
		at   int
		want []edit
	}{
		{"other maps, then the value's address", otherMap, fd, 0, []edit{
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapFD, 2, 0)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 0, 0)}}},
		{"a value's address back to the map", otherMap, value, 0, []edit{
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 0, 0)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapFD, 2, 0)}}},
		{"no map in a second half", otherMap, fd, 1, nil},
		{"value offsets at the edges of 4 bytes", mapValueOffset, value, 0, []edit{
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 2, 3)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 2, 4)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 2, -4)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 2, -1)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 2, insn.MaxVarOff)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 2, 1)},
			{at: 0, del: 2, repl: mapLoad(1, insn.PseudoMapValue, 2, -1)}}},
		{"no value offset of a map fd", mapValueOffset, fd, 0, nil},
		{"call each other function", local(otherCallee), calls, 0, []edit{rewrite(0, call(-1)), rewrite(0, call(4))}},
		{"callback address of each other function", local(otherCallee), calls, 1, []edit{
			{at: 1, del: 2, repl: funcAddr(2, -2)}, {at: 1, del: 2, repl: funcAddr(2, 2)}}},
		{"kfuncs of the program and the object", otherKfunc, prog(kfunc(70, 0), kfunc(9, 1), exit()), 1, []edit{
			rewrite(1, kfunc(70, 0)), rewrite(1, kfunc(71, 2))}},
		{"no kfunc for a helper", otherKfunc, prog(helper(1), exit()), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.fn(env, tt.prog, tt.at), cmp.AllowUnexported(edit{})); diff != "" {
				t.Errorf("edits mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
