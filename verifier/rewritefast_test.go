package verifier

import (
	"math/rand/v2"
	"testing"

	"github.com/vercheck/vercheck/insn"
)

// randomSingleFunction is a random single function for the rewrite
// replay: gotos, may_gotos and conditional jumps anywhere in it (runs of
// them included), dead runs, fastcall nops, and random patch lengths.
func randomSingleFunction(rng *rand.Rand) (*env, *rewriteLens) {
	n := 2 + rng.IntN(40)
	prog := make([]insn.Insn, n)
	seen := make([]bool, n)
	jumpTo := func(i int) int16 {
		t := rng.IntN(n + 1)
		if rng.IntN(2) == 0 {
			t = min(n, i+1+rng.IntN(4)) // short forward jumps, nop material
		}
		return int16(t - i - 1)
	}
	for i := range prog {
		switch r := rng.IntN(10); {
		case r < 4:
			prog[i] = insn.Insn{Op: insn.ClassALU64 | insn.ALUMov, Dst: 1}
		case r < 6:
			prog[i] = insn.Insn{Op: insn.ClassJMP | insn.JmpJA, Off: jumpTo(i)}
		case r < 7:
			prog[i] = insn.Insn{Op: insn.ClassJMP | insn.JmpJCOND, Off: jumpTo(i)}
		case r < 8:
			prog[i] = insn.Insn{Op: insn.ClassJMP | insn.JmpJEQ, Dst: 1, Off: jumpTo(i)}
		case r < 9 && rng.IntN(2) == 0:
			prog[i] = insn.Insn{Op: insn.ClassJMP32 | insn.JmpJEQ, Dst: 1, Off: jumpTo(i)}
		case r < 9:
			prog[i] = insn.Insn{Op: insn.ClassJMP32 | insn.JmpJA, Imm: int32(jumpTo(i))} // gotol
		default:
			prog[i] = insn.Insn{Op: insn.ClassJMP | insn.JmpExit}
		}
		seen[i] = i == 0 || rng.IntN(5) != 0
	}
	// A reached exit: no accepted program is deleted whole.
	prog[n-1], seen[n-1] = insn.Insn{Op: insn.ClassJMP | insn.JmpExit}, true
	e := &env{prog: prog, seen: seen, cfg: &insn.CFG{Subprogs: []insn.Subprog{{Start: 0, End: n}}}}
	if rng.IntN(8) == 0 {
		e.fastcall.spills = make([]int, n)
		e.fastcall.spills[rng.IntN(n)] = 1 + rng.IntN(2)
	}
	e.auxPtr = make([]auxPtrType, n)
	l := e.rewriteLengths()
	if rng.IntN(4) == 0 {
		l.prologue = 2 + rng.IntN(4)
	}
	for i := range prog {
		if !seen[i] || prog[i].Op == insn.ClassJMP|insn.JmpJCOND {
			continue
		}
		for _, pass := range rng.Perm(numPasses) {
			if rng.IntN(6) == 0 {
				lo := 2 + rng.IntN(5)
				hi, why := lo, ""
				if rng.IntN(20) == 0 {
					hi, why = lo+3, "a random bound"
				}
				l.set(i, pass)(lo, hi, why)
			}
		}
	}
	return e, l
}

// TestXlatedSingleFunctionMatchesReplay checks the count of
// xlatedSingleFunction against the replay's rewritten length, on random
// single functions, and that the count decides most of them.
func TestXlatedSingleFunctionMatchesReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	decided, removing := 0, 0
	const trials = 20000
	for trial := range trials {
		e, l := randomSingleFunction(rng)
		got, ok := e.xlatedSingleFunction(l)
		if !ok {
			continue
		}
		decided++
		out := e.replayRewrites(l, false)
		want := out.xlated
		if l.unknown {
			want = 0
		}
		if out.fail != nil || out.unmodelled != "" || got != want {
			t.Fatalf("trial %d: count %d, replay %d (fail %v, %q)\nprog %v\nseen %v\nspills %v", trial, got, want, out.fail, out.unmodelled, e.prog, e.seen, e.fastcall.spills)
		}
		if got < len(e.prog)+l.growHi {
			removing++
		}
	}
	if decided < trials/2 || removing < trials/4 {
		t.Fatalf("the count decided %d of %d programs, %d of them with deletions: too few", decided, trials, removing)
	}
	t.Logf("the count decided %d of %d programs, %d of them with deletions", decided, trials, removing)
}
