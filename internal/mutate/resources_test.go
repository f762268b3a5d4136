package mutate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// iterProg makes an iterator at fp-8 with two kfunc calls (new, then
// destroy) and returns 0.
func iterProg() []insn.Insn {
	return prog(
		movX(insn.R1, insn.R10), addImm(insn.R1, -8), mov(2, 0), mov(3, 10), kfunc(100, 0), // 0-4: new
		movX(insn.R1, insn.R10), addImm(insn.R1, -8), kfunc(101, 0), // 5-7: destroy
		mov(0, 0), exit())
}

// editCase is one row of an operator table: the edits fn makes at
// instruction at of prog.
type editCase struct {
	name string
	fn   func([]insn.Insn, int) []edit
	prog []insn.Insn
	at   int
	want []edit
}

// checkEdits runs an operator table.
func checkEdits(t *testing.T, tests []editCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.fn(tt.prog, tt.at), cmp.AllowUnexported(edit{})); diff != "" {
				t.Errorf("edits mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// firstEdit confines an operator to its first edit, if any.
func firstEdit(fn func([]insn.Insn, int) []edit) func([]insn.Insn, int) []edit {
	return func(p []insn.Insn, i int) []edit {
		if eds := fn(p, i); len(eds) > 0 {
			return eds[:1]
		}
		return nil
	}
}

// TestResourceOperators checks the first edits (or all) of the operators
// against the kernel's rules for resources and calls, and where they do
// not apply.
func TestResourceOperators(t *testing.T) {
	p := iterProg()
	first := firstEdit
	second := func(fn func([]insn.Insn, int) []edit) func([]insn.Insn, int) []edit {
		return func(p []insn.Insn, i int) []edit { return fn(p, i)[1:2] }
	}
	insertFirst := first(func(p []insn.Insn, i int) []edit { return callInsert(Env{}, p, i) })
	tailCall := func(p []insn.Insn, i int) []edit { return tailCallInsert(Env{ProgArrays: []int32{2}}, p, i) }
	loaded := func(p []insn.Insn, i int) []edit {
		return loadedPointerArg(Env{Kfuncs: []insn.Insn{kfunc(9, 0)}}, p, i)
	}
	withCtx := prog(movX(insn.R6, insn.R1), helper(7), exit())
	cast := insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: 1, Src: 1, Off: 1, Imm: castToArena}
	withCast := func(imm int32) insn.Insn { c := cast; c.Imm = imm; return c }
	checkEdits(t, []editCase{
		{"destroy repeated with its set-up", first(callRepeat), p, 7, []edit{insertion(8,
			movX(insn.R1, insn.R10), addImm(insn.R1, -8), kfunc(101, 0))}},
		{"repeated with r0 kept below the stack used", second(callRepeat), p, 7, []edit{insertion(8,
			stx(insn.SizeDW, insn.R10, 0, -16), movX(insn.R1, insn.R10), addImm(insn.R1, -8), kfunc(101, 0),
			ldx(insn.ModeMEM, insn.SizeDW, 0, insn.R10, -16))}},
		{"no repeat of a non-call", callRepeat, p, 6, nil},
		{"call dropped, block dropped", callDrop, p, 7, []edit{rewrite(7, mov(0, 0)),
			{at: 5, del: 3, repl: []insn.Insn{mov(0, 0)}}}},
		{"destroy moved above new", first(callBlockMove), p, 7, []edit{{at: 4, del: 4, repl: []insn.Insn{
			movX(insn.R1, insn.R10), addImm(insn.R1, -8), kfunc(101, 0), kfunc(100, 0)}}}},
		{"argument-free helper after a call", insertFirst, p, 4, []edit{insertion(5, helper(5))}},
		{"early exit on a dead register", earlyExit, p, 8, []edit{insertion(8,
			ldx(insn.ModeMEM, insn.SizeB, insn.R9, insn.R10, -16),
			insn.Insn{Op: insn.ClassJMP | insn.JmpJNE, Dst: insn.R9, Off: 2}, mov(0, 0), exit())}},
		{"return value past a callback's range", first(returnValue), p, 9, []edit{insertion(9, mov(0, 2))}},
		{"no return value but at an exit", returnValue, p, 8, nil},
		{"the frame pointer returned", func(p []insn.Insn, i int) []edit { return pointerReturn(p, i)[9:] }, p, 9, []edit{
			insertion(9, movX(insn.R0, insn.R10))}},
		{"constant argument sign-extended", func(p []insn.Insn, i int) []edit { return varConstArg(p, i)[3:4] }, p, 4, []edit{{at: 2, del: 1, repl: []insn.Insn{
			ldx(insn.ModeMEMSX, insn.SizeB, 2, insn.R10, -16)}}}},
		{"another stack object", first(stackObjectArg), p, 7, []edit{rewrite(6, addImm(insn.R1, -24))}},
		{"first slot of the object overwritten", first(stackObjectOverwrite), p, 4, []edit{insertion(5,
			insn.Insn{Op: insn.ClassST | insn.ModeMEM | insn.SizeDW, Dst: insn.R10, Off: -8})}},
		{"constant argument made variable", first(varConstArg), p, 4, []edit{{at: 2, del: 1, repl: []insn.Insn{
			ldx(insn.ModeMEM, insn.SizeB, 2, insn.R10, -16), insn.Insn{Op: insn.ClassALU64 | insn.ALUAnd, Dst: 2}}}}},
		{"first two arguments exchanged", first(argSwap), p, 4, []edit{insertion(4,
			movX(insn.R0, insn.R1), movX(insn.R1, insn.R2), movX(insn.R2, insn.R0))}},
		{"cast turned around and made invalid", addrSpaceCast, prog(cast, exit()), 0, []edit{
			rewrite(0, withCast(castToKernel)), rewrite(0, withCast(0)), rewrite(0, withCast(2)),
			rewrite(0, withCast(castToArena|castToKernel))}},
		{"cast of a used register", first(addrSpaceCast), prog(ldx(insn.ModeMEM, insn.SizeB, 0, 1, 0), exit()), 0, []edit{
			insertion(0, insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Off: 1, Imm: castToKernel})}},
		{"may_goto loop around one instruction", first(loopWrap), p, 8, []edit{{at: 8, del: 1, repl: []insn.Insn{
			mov(0, 0), mayGotoInsn(1), ja(-3)}}}},
		{"counted loop on a dead register", second(loopWrap), p, 8, []edit{{at: 8, del: 1, repl: []insn.Insn{
			mov(insn.R9, 0), mov(0, 0), addImm(insn.R9, 1),
			insn.Insn{Op: insn.ClassJMP | insn.JmpJLT, Dst: insn.R9, Imm: 2, Off: -3}}}}},
		{"tail call through the context saved at the start", first(tailCall), withCtx, 1, []edit{insertion(2,
			movX(insn.R1, insn.R6), mapLoad(2, insn.PseudoMapFD, 2, 0)[0], mapLoad(2, insn.PseudoMapFD, 2, 0)[1],
			mov(3, 0), helper(insn.HelperTailCall))}},
		{"no tail call without a saved context", tailCall, prog(helper(7), exit()), 0, nil},
		{"a live register zeroed on one path", first(pathSplit), prog(mov(6, 5), movX(0, 6), exit()), 1, []edit{insertion(1,
			ldx(insn.ModeMEM, insn.SizeB, insn.R9, insn.R10, -8), insn.Insn{Op: insn.ClassJMP | insn.JmpJNE, Dst: insn.R9, Off: 1},
			mov(6, 0))}},
		{"a loaded pointer to a kfunc, r2 kept", first(loaded), prog(ldx(insn.ModeMEM, insn.SizeDW, 6, 1, 0), movX(0, 2), exit()), 0,
			[]edit{insertion(1, stx(insn.SizeDW, insn.R10, 2, -8), movX(insn.R1, insn.R6), kfunc(9, 0), ldx(insn.ModeMEM, insn.SizeDW, 2, insn.R10, -8))}},
		{"read at a subprogram's entry", first(callbackEntry), prog(call(1), exit(), mov(0, 0), exit()), 2, []edit{
			insertion(2, ldx(insn.ModeMEM, insn.SizeB, 0, 1, 0))}},
		{"no entry but a subprogram's", callbackEntry, prog(call(1), exit(), mov(0, 0), exit()), 1, nil},
	})
}

// TestCallBlockRelocatesCallbacks checks that a repeated call block
// whose set-up takes a callback's address still refers to the callback.
func TestCallBlockRelocatesCallbacks(t *testing.T) {
	p := prog(mov(1, 4), funcAddr(2, 4), helper(181), mov(0, 0), exit(), mov(0, 0), exit())
	m, err := Identity(p).apply(callRepeat(p, 3)[0], "")
	if err != nil {
		t.Fatal(err)
	}
	// The callback (at 6, then 10) is reached from both copies.
	for _, at := range []int{1, 5} {
		if got := at + int(m.Insns[at].Imm) + 1; got != 10 {
			t.Errorf("function address at %d reaches %d, want 10", at, got)
		}
	}
}

// TestOperatorSelection checks that the resource family names operators
// Mutate has, and that Env.Operators confines Mutate to them.
func TestOperatorSelection(t *testing.T) {
	for _, name := range ResourceOperators() {
		if !slices.Contains(Operators(), name) {
			t.Errorf("resource operator %q is not registered", name)
		}
	}
	env := Env{Operators: []string{"argument swap"}}
	for i := range 20 {
		m := Mutate(iterProg(), rand.New(rand.NewPCG(uint64(i), 0)), 3, env)
		for _, op := range m.Operators {
			if op != "argument swap" {
				t.Fatalf("mutant %d made by %q, want only argument swap", i, op)
			}
		}
	}
}
