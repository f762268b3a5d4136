package profile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// loopProgram is
//
//	0: r0 = 0           loop.c:1 "int x = 0;"
//	1: r0 += 1          loop.c:2 "x++;"       (loop header)
//	2: if r0 < 3 goto 1 loop.c:3 "while (x < 3)"
//	3: exit             loop.c:4 "return x;"
func loopProgram(t *testing.T) (*insn.CFG, Program) {
	t.Helper()
	code := []insn.Insn{
		{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcK, Dst: insn.R0},
		{Op: insn.ClassALU64 | insn.ALUAdd | insn.SrcK, Dst: insn.R0, Imm: 1},
		{Op: insn.ClassJMP | insn.JmpJLT | insn.SrcK, Dst: insn.R0, Imm: 3, Off: -2},
		{Op: insn.ClassJMP | insn.JmpExit},
	}
	cfg, err := insn.Analyze(code)
	if err != nil {
		t.Fatal(err)
	}
	lines := []loader.Line{
		{File: "/src/loop.c", Line: 1, Source: "int x = 0;"},
		{File: "/src/loop.c", Line: 2, Source: "x++;"},
		{File: "/src/loop.c", Line: 3, Source: "while (x < 3)"},
		{File: "/src/loop.c", Line: 4, Source: "return x;"},
	}
	return cfg, Program{Insns: code, Lines: lines, Funcs: []loader.Func{{Start: 0, Name: "count"}}, StackDepth: []int{0}}
}

// recordLoop feeds a recorder the walk of loopProgram: three iterations,
// the header checkpointed on the first and compared with it on the others.
func recordLoop(r *Recorder) {
	counter := func(v uint64) states.Reg {
		var reg states.Reg
		reg.MarkConst(v)
		return reg
	}
	r.Visit(0, -1)
	prev := 0
	for i := uint64(1); i <= 3; i++ {
		r.Visit(1, prev)
		if i == 1 {
			r.Add(1)
		} else {
			m := states.Mismatch{Kind: states.MismatchRange, Frame: 0, Reg: 0, Slot: -1, Old: counter(0), Cur: counter(i - 1)}
			r.Classify(1, m, 0, true, r.CountMiss(1))
			r.ListLen(1, 1)
		}
		r.Visit(2, 1)
		prev = 2
	}
	r.Visit(3, 2)
}

func TestBuild(t *testing.T) {
	cfg, prog := loopProgram(t)
	r := NewRecorder(cfg)
	recordLoop(r)
	got := Build(r, prog)
	// Both misses are R0's range: one reason, with the first example.
	reasons := []Reason{{Kind: "range", Where: "R0", Old: "0", Cur: "1", Ancestor: true, Count: 2,
		Text: "R0's range differs (0 vs 1) from the same path's earlier loop iteration"}}
	header := Counters{Visits: 3, StatesAdded: 1, Misses: 2, MaxStates: 1}
	want := &Profile{
		InsnProcessed: 8, StatesAdded: 1, Misses: 2, MaxStates: 1,
		Insns: []Insn{
			{Insn: 0, Text: "r0 = 0", File: "/src/loop.c", Line: 1, Counters: Counters{Visits: 1}},
			{Insn: 1, Text: "r0 += 1", File: "/src/loop.c", Line: 2, Counters: header, MissReasons: reasons},
			{Insn: 2, Text: "if r0 < 0x3 goto pc-2", File: "/src/loop.c", Line: 3, Counters: Counters{Visits: 3}},
			{Insn: 3, Text: "exit", File: "/src/loop.c", Line: 4, Counters: Counters{Visits: 1}},
		},
		Lines: []Line{
			{File: "/src/loop.c", Line: 1, Source: "int x = 0;", Insns: []int{0}, Counters: Counters{Visits: 1}},
			{File: "/src/loop.c", Line: 2, Source: "x++;", Insns: []int{1}, Counters: header, MissReasons: reasons},
			{File: "/src/loop.c", Line: 3, Source: "while (x < 3)", Insns: []int{2}, Counters: Counters{Visits: 3}},
			{File: "/src/loop.c", Line: 4, Source: "return x;", Insns: []int{3}, Counters: Counters{Visits: 1}},
		},
		Subprogs: []Subprog{{Index: 0, Name: "count", Start: 0, End: 4, Counters: Counters{Visits: 8, StatesAdded: 1, Misses: 2, MaxStates: 1}}},
		Loops: []Loop{{SCC: 1, Header: 1, File: "/src/loop.c", Line: 2, Source: "x++;", Size: 2, Entries: 1, Iterations: 2,
			Counters: Counters{Visits: 6, StatesAdded: 1, Misses: 2, MaxStates: 1}, MissReasons: reasons}},
		Blocks: []Block{
			{Start: 0, End: 1, Succs: []int{1}, Counters: Counters{Visits: 1}},
			{Start: 1, End: 3, Loop: 1, Succs: []int{2, 1}, Counters: Counters{Visits: 6, StatesAdded: 1, Misses: 2, MaxStates: 1}},
			{Start: 3, End: 4, Succs: []int{}, Counters: Counters{Visits: 1}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Build mismatch (-want +got):\n%s", diff)
	}
}

func TestWriteText(t *testing.T) {
	cfg, prog := loopProgram(t)
	r := NewRecorder(cfg)
	recordLoop(r)
	var b strings.Builder
	if err := Build(r, prog).WriteText(&b, 2); err != nil {
		t.Fatal(err)
	}
	want := `  insn_processed 8, states stored 1, hits 0, misses 2, evicted 0, longest state list 1

  hottest source lines
  VISITS SHARE STATES HITS MISSES EVICTED LIST LINE     SOURCE
       3 37.5%      1    0      2       0    1 loop.c:2 ` + "`x++;`" + `
       3 37.5%      0    0      0       0    0 loop.c:3 ` + "`while (x < 3)`" + `

  hottest instructions
  VISITS SHARE STATES HITS MISSES EVICTED LIST INSN CODE                  LINE
       3 37.5%      1    0      2       0    1    1 r0 += 1               loop.c:2
       3 37.5%      0    0      0       0    0    2 if r0 < 0x3 goto pc-2 loop.c:3

  subprograms
  VISITS  SHARE STATES HITS MISSES EVICTED LIST STACK START NAME
       8 100.0%      1    0      2       0    1     0     0 count

  loops
  VISITS SHARE STATES HITS MISSES EVICTED LIST ITERATIONS ENTRIES SIZE HEADER LINE     SOURCE
       6 75.0%      1    0      2       0    1          2       1    2      1 loop.c:2 ` + "`x++;`" + `

  why stored states did not match
  loop.c:2 (` + "`x++;`" + `): 2 misses, 100% because R0's range differs (0 vs 1) from the same path's earlier loop iteration
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
}

// TestNilRecorder checks that the hooks do nothing without a recorder,
// as in a verification without profiling.
func TestNilRecorder(t *testing.T) {
	var r *Recorder
	r.Visit(0, -1)
	r.Hit(0)
	r.Classify(0, states.Mismatch{}, 0, false, r.CountMiss(0))
	r.Evict(0)
	r.Add(0)
	r.ListLen(0, 3)
}

func TestMissSummary(t *testing.T) {
	reasons := []Reason{{Count: 81, Text: "a"}, {Count: 12, Text: "b"}, {Count: 5, Text: "c"}, {Count: 2, Text: "d"}}
	tests := []struct {
		misses int
		rs     []Reason
		want   string
	}{
		{100, reasons, "100 misses, 81% because a, 12% because b"},
		{100, nil, "100 misses"},
		{1, []Reason{{Count: 1, Text: "x"}}, "1 miss, 100% because x"},
		{4312, []Reason{{Count: 4312, Text: "x"}}, "4,312 misses, 100% because x"},
	}
	for _, tt := range tests {
		if got := missSummary(tt.misses, tt.rs); got != tt.want {
			t.Errorf("missSummary(%d) = %q, want %q", tt.misses, got, tt.want)
		}
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -45000: "-45,000"} {
		if got := group(n); got != want {
			t.Errorf("group(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMergeReasons(t *testing.T) {
	a := []Reason{{Kind: "range", Where: "R3", Old: "1", Cur: "2", Count: 5, Text: "r3 a"}, {Kind: "spill", Where: "fp-8", Count: 1, Text: "fp"}}
	b := []Reason{{Kind: "range", Where: "R3", Old: "7", Cur: "9", Count: 9, Text: "r3 b"}, {Kind: "range", Where: "R3", Ancestor: true, Count: 2, Text: "loop"}}
	// The same difference at the same place sums, with the example of
	// its most frequent instance; an ancestor's is another reason.
	want := []Reason{
		{Kind: "range", Where: "R3", Old: "7", Cur: "9", Count: 14, Text: "r3 b"},
		{Kind: "range", Where: "R3", Ancestor: true, Count: 2, Text: "loop"},
		{Kind: "spill", Where: "fp-8", Count: 1, Text: "fp"},
	}
	if diff := cmp.Diff(want, mergeReasons(a, b)); diff != "" {
		t.Errorf("mergeReasons mismatch (-want +got):\n%s", diff)
	}
}

func TestBudget(t *testing.T) {
	cfg, prog := loopProgram(t)
	r := NewRecorder(cfg)
	recordLoop(r)
	p := Build(r, prog)
	want := []string{
		"the budget went to the loop at loop.c:2 (`x++;`): 75.0% of 8 insns, 2 iterations explored, 1 state stored",
		"stored states in the loop did not match: 2 misses, 100% because R0's range differs (0 vs 1) from the same path's earlier loop iteration",
	}
	if diff := cmp.Diff(want, p.Budget()); diff != "" {
		t.Errorf("Budget with a loop mismatch (-want +got):\n%s", diff)
	}

	// Without the loop, the hottest lines are named.
	p.Loops = nil
	want = []string{
		"no loop holds the budget; the hottest places are loop.c:2 (`x++;`) 37.5%, loop.c:3 (`while (x < 3)`) 37.5%, loop.c:1 (`int x = 0;`) 12.5%",
		want[1][:len("stored states")] + want[1][len("stored states in the loop"):],
	}
	if diff := cmp.Diff(want, p.Budget()); diff != "" {
		t.Errorf("Budget without a loop mismatch (-want +got):\n%s", diff)
	}

	// A function other than the main program holding the budget (a
	// bpf_loop callback verified again at every call) is named, with
	// its entries.
	p.Subprogs = []Subprog{
		{Index: 0, Name: "main", Start: 4, End: 5, Counters: Counters{Visits: 2}},
		{Index: 1, Name: "cb", Start: 0, End: 4, Counters: Counters{Visits: 6}},
	}
	want[0] = "no loop holds the budget; it went to the function cb (loop.c:1): 75.0% of 8 insns, entered 1 time; " + want[0][len("no loop holds the budget; "):]
	if diff := cmp.Diff(want, p.Budget()); diff != "" {
		t.Errorf("Budget in a function mismatch (-want +got):\n%s", diff)
	}
	p.Subprogs[1].Visits = 4 // half: not named
	if got := p.Budget()[0]; got != want[0][:len("no loop holds the budget; ")]+"the hottest places are"+want[0][strings.Index(want[0], " loop.c:2 (`x++;`) 37.5%"):] {
		t.Errorf("Budget with a function at half the budget: %q", got)
	}
	if got := (&Profile{}).Budget(); got != nil {
		t.Errorf("Budget of an empty profile = %q, want nothing", got)
	}
}

// TestCountMissSamples: every miss is counted; the first FullMisses at an
// instruction are classified one by one, then about one in SampleEvery,
// scattered, weighing the misses since the previous sample: over a run of
// misses alternating between two reasons each keeps about half the
// weight, and once the profile is built the reasons add up to the misses.
func TestCountMissSamples(t *testing.T) {
	cfg, prog := loopProgram(t)
	r := NewRecorder(cfg)
	const past = 80_000
	even := states.Mismatch{Kind: states.MismatchRange, Reg: 1}
	odd := states.Mismatch{Kind: states.MismatchRange, Reg: 2}
	var byParity [2]int
	sampledMisses := 0
	for i := range FullMisses + past {
		m := even
		if i%2 == 1 {
			m = odd
		}
		w := r.CountMiss(1)
		if w > 0 && i >= FullMisses {
			sampledMisses++
		}
		byParity[i%2] += w
		r.Classify(1, m, 0, false, w)
	}
	if lo, hi := past/SampleEvery*9/10, past/SampleEvery*11/10; sampledMisses < lo || sampledMisses > hi {
		t.Errorf("%d of %d misses sampled, want about %d", sampledMisses, past, past/SampleEvery)
	}
	for p, w := range byParity {
		if half := (FullMisses + past) / 2; w < half*9/10 || w > half*11/10 {
			t.Errorf("misses of parity %d weigh %d, want about %d", p, w, half)
		}
	}
	sum, misses := 0, 0
	for _, in := range Build(r, prog).Insns {
		misses += in.Misses
		for _, reason := range in.MissReasons {
			sum += reason.Count
		}
	}
	if sum != FullMisses+past || misses != FullMisses+past {
		t.Errorf("reasons add up to %d of %d misses, want %d", sum, misses, FullMisses+past)
	}
}
