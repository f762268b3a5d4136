package mutate

import (
	"math/rand/v2"
	"testing"
)

// TestFuncBTFVariants: every parameter gets each type and tag, every
// function each return type, subprograms (not the main program) a
// linkage toggle; a run naming the operator alone gives each mutant one
// edit, described among its changes.
func TestFuncBTFVariants(t *testing.T) {
	funcs := []FuncInfo{{Params: 1}, {Params: 2}, {}}
	counts := map[FuncEdit]int{}
	for _, v := range funcBTFVariants(funcs) {
		counts[v.Edit]++
		if v.Edit == FuncLinkage && v.Func == 0 {
			t.Errorf("the main program's linkage toggled")
		}
	}
	want := map[FuncEdit]int{FuncLinkage: 2, FuncParamType: 3 * len(ParamTypes), FuncParamTag: 3 * len(ParamTags), FuncReturn: 3 * len(ReturnTypes)}
	for e, n := range want {
		if counts[e] != n {
			t.Errorf("edit %d: %d variants, want %d", e, counts[e], n)
		}
	}
	code := prog(mov(0, 0), exit())
	for s := range uint64(100) {
		m := Mutate(code, rand.New(rand.NewPCG(s, 3)), 1, Env{Funcs: funcs, Operators: []string{FuncBTFOperator}})
		if len(m.FuncBTFs) != 1 || len(m.Changes) != 1 || m.Operators[0] != FuncBTFOperator {
			t.Fatalf("stream %d: %+v, changes %q: want one function edit", s, m.FuncBTFs, m.Changes)
		}
	}
}
