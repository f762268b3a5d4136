package insn

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type flagSets struct {
	Prune, Jmp, Force, Callback []int
}

func collectFlags(g *CFG) flagSets {
	var f flagSets
	for i := 0; i < g.Len(); i++ {
		if g.PrunePoint(i) {
			f.Prune = append(f.Prune, i)
		}
		if g.JmpPoint(i) {
			f.Jmp = append(f.Jmp, i)
		}
		if g.ForceCheckpoint(i) {
			f.Force = append(f.Force, i)
		}
		if g.CallsCallback(i) {
			f.Callback = append(f.Callback, i)
		}
	}
	return f
}

// loopCallbackProg calls bpf_loop(1, callback at insn 7, 0, 0).
var loopCallbackProg = prog(
	movImm(R1, 1),
	ldImm64(R2, PseudoFunc, 5),
	movImm(R3, 0),
	movImm(R4, 0),
	call(HelperLoop),
	exit(),
	movImm(R0, 0),
	exit(),
)

func TestFlags(t *testing.T) {
	tests := []struct {
		name string
		prog []Insn
		want flagSets
	}{
		{"cond jump", prog(movImm(R0, 0), jmpImm(JmpJEQ, R0, 0, 1), movImm(R0, 1), exit()),
			flagSets{Prune: []int{1, 3}, Jmp: []int{3}}},
		{"ja", prog(movImm(R0, 0), jmpImm(JmpJEQ, R0, 0, 2), movImm(R0, 1), ja(0), exit()),
			flagSets{Prune: []int{1, 4}, Jmp: []int{4}}},
		{"gotol", prog(movImm(R0, 0), Insn{Op: ClassJMP32 | JmpJA, Imm: 0}, exit()),
			flagSets{Prune: []int{2}, Jmp: []int{2}}},
		{"helper call", prog(call(7), exit()),
			flagSets{Prune: []int{1}, Jmp: []int{1}}},
		{"timer_set_callback", prog(call(HelperTimerSetCallback), exit()),
			flagSets{Prune: []int{0, 1}, Jmp: []int{1}}},
		{"bpf_loop", loopCallbackProg,
			flagSets{Prune: []int{1, 3, 5, 6, 7}, Jmp: []int{3, 5, 6, 7}, Force: []int{5}, Callback: []int{5}}},
		{"may_goto", prog(movImm(R0, 0), Insn{Op: ClassJMP | JmpJCOND, Off: 1}, movImm(R0, 1), exit()),
			flagSets{Prune: []int{1, 3}, Jmp: []int{3}, Force: []int{1}}},
		// A JCOND whose src is not the may_goto marker is no may_goto: the
		// kernel gives it no forced checkpoint (it is rejected later).
		{"jcond bad src", prog(movImm(R0, 0), Insn{Op: ClassJMP | JmpJCOND, Src: 1, Off: 1}, movImm(R0, 1), exit()),
			flagSets{Prune: []int{1, 3}, Jmp: []int{3}}},
		{"bpf2bpf", prog(movImm(R1, 1), callPC(1), exit(), movImm(R0, 0), exit()),
			flagSets{Prune: []int{1, 2, 3}, Jmp: []int{2, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Analyze(tc.prog)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, collectFlags(g)); diff != "" {
				t.Errorf("flags mismatch (-want +got):\n%s", diff)
			}
			// The verifier's walk asks JmpPoint only at prune points.
			for i := range tc.prog {
				if g.JmpPoint(i) && !g.PrunePoint(i) {
					t.Errorf("insn %d: a JmpPoint that is no PrunePoint", i)
				}
			}
		})
	}
}

func TestKfuncFlags(t *testing.T) {
	p := prog(Insn{Op: ClassJMP | JmpCall, Src: PseudoKfuncCall, Imm: 99}, exit())
	g, err := AnalyzeWith(p, Options{KfuncKind: func(Insn) KfuncKind { return KfuncIterNext }})
	if err != nil {
		t.Fatal(err)
	}
	want := flagSets{Prune: []int{0, 1}, Jmp: []int{1}, Force: []int{0}}
	if diff := cmp.Diff(want, collectFlags(g)); diff != "" {
		t.Errorf("flags mismatch (-want +got):\n%s", diff)
	}
}

func TestSubprogs(t *testing.T) {
	g, err := Analyze(loopCallbackProg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Subprog{{0, 7}, {7, 9}}, g.Subprogs); diff != "" {
		t.Errorf("Subprogs mismatch (-want +got):\n%s", diff)
	}
	var of []int
	for i := -1; i <= g.Len(); i++ {
		of = append(of, g.SubprogOf(i))
	}
	if diff := cmp.Diff([]int{-1, 0, 0, 0, 0, 0, 0, 0, 1, 1, -1}, of); diff != "" {
		t.Errorf("SubprogOf mismatch (-want +got):\n%s", diff)
	}
	if g.SubprogAt(7) != 1 || g.SubprogAt(8) != -1 {
		t.Errorf("SubprogAt(7), SubprogAt(8) = %d, %d, want 1, -1", g.SubprogAt(7), g.SubprogAt(8))
	}
}

// helperArgs knows the helpers the liveness tests call.
func helperArgs(id int32) int {
	switch id {
	case 7: // bpf_get_prandom_u32
		return 0
	case 26: // bpf_skb_load_bytes
		return 4
	}
	return -1
}

const (
	m0 uint16 = 1 << iota
	m1
	m2
	m3
	m4
	m5
	m6
	m7
	m8
	m9
	m10
)

// liveCases pair programs with live_regs_before per insn (0 for fillers).
var liveCases = []struct {
	name string
	prog []Insn
	want []uint16
}{
	{"straight line", prog(movImm(R1, 1), movReg(R0, R1), exit()),
		[]uint16{0, m1, m0}},
	{"branch", prog(movImm(R0, 0), movImm(R2, 3), jmpImm(JmpJGT, R2, 1, 1), movReg(R0, R2), exit()),
		[]uint16{0, m0, m0 | m2, m2, m0}},
	{"helper args", prog(
		movReg(R6, R1), movReg(R1, R6), movImm(R2, 0), movReg(R3, R10), aluImm(ALUAdd, R3, -8),
		movImm(R4, 4), call(26), movImm(R0, 0), exit()),
		[]uint16{m1 | m10, m6 | m10, m1 | m10, m1 | m2 | m10, m1 | m2 | m3, m1 | m2 | m3, m1 | m2 | m3 | m4, 0, m0}},
	{"unknown helper reads r1-r5", prog(call(7), movReg(R0, R6), exit()),
		[]uint16{m6, m6, m0}},
	{"stores and loads", prog(st(SizeDW, R10, -8, 1), ldx(SizeDW, R0, R10, -8), stx(SizeDW, R10, R0, -16), exit()),
		[]uint16{m10, m10, m0 | m10, m0}},
	{"loop", prog(movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2), exit()),
		[]uint16{0, m0, m0, m0}},
	{"ld_imm64 and bpf2bpf", prog(ldImm64(R6, 0, 5), movReg(R1, R6), callPC(1), exit(), movReg(R0, R1), exit()),
		[]uint16{m2 | m3 | m4 | m5, 0, m2 | m3 | m4 | m5 | m6, m1 | m2 | m3 | m4 | m5, m0, m1, m0}},
	{"cmpxchg", prog(movImm(R0, 0), st(SizeDW, R10, -8, 0), movImm(R1, 1),
		Insn{Op: ClassSTX | ModeATOMIC | SizeDW, Dst: R10, Src: R1, Off: -8, Imm: AtomicCmpXchg}, exit()),
		[]uint16{m10, m0 | m10, m0 | m10, m0 | m1 | m10, m0}},
}

func TestLiveRegs(t *testing.T) {
	for _, tc := range liveCases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := AnalyzeWith(tc.prog, Options{HelperArgs: helperArgs})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]uint16, g.Len())
			for i := range got {
				got[i] = g.LiveRegsBefore(i)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("LiveRegsBefore mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSCC(t *testing.T) {
	tests := []struct {
		name  string
		prog  []Insn
		want  []int
		loops bool
	}{
		{"no loop", prog(movImm(R0, 0), jmpImm(JmpJEQ, R0, 0, 0), exit()), []int{0, 0, 0}, false},
		{"loop", prog(movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2), exit()), []int{0, 1, 1, 0}, true},
		{"self loop", prog(movImm(R0, 0), jmpImm(JmpJLT, R0, 10, -1), exit()), []int{0, 1, 0}, true},
		{"two loops", prog(
			movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2),
			aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 20, -2), exit()), []int{0, 2, 2, 1, 1, 0}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Analyze(tc.prog)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int, g.Len())
			for i := range got {
				got[i] = g.SCC(i)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SCC mismatch (-want +got):\n%s", diff)
			}
			if g.HasLoops != tc.loops {
				t.Errorf("HasLoops = %v, want %v", g.HasLoops, tc.loops)
			}
		})
	}
}

// liveLine matches a row of the kernel's "Live regs before insn:" table:
// an optional SCC id, the insn index, and r0-r9 as digits or dots.
var liveLine = regexp.MustCompile(`^(.{4})\s*(\d+): ([0-9.]{10}) \(`)

// TestKernelLiveRegs compares LiveRegsBefore and SCC with the tables the
// kernel prints at log level 2.
func TestKernelLiveRegs(t *testing.T) {
	requireKernel(t)
	progs := map[string][]Insn{
		"two loops": prog(
			movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2),
			aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 20, -2), exit()),
		"nested loops": prog(
			movImm(R0, 0), movImm(R1, 0), aluImm(ALUAdd, R1, 1), jmpImm(JmpJLT, R1, 3, -2),
			aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 3, -5), exit()),
	}
	for _, tc := range liveCases {
		progs[tc.name] = tc.prog
	}
	for name, p := range progs {
		t.Run(name, func(t *testing.T) {
			log := kernelLog(t, Encode(p))
			g, err := AnalyzeWith(p, Options{HelperArgs: helperArgs})
			if err != nil {
				t.Fatal(err)
			}
			var want, got []string
			for _, l := range strings.Split(log, "\n") {
				m := liveLine.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				idx, _ := strconv.Atoi(m[2])
				want = append(want, strings.TrimSpace(m[1])+"|"+m[3])
				got = append(got, renderLive(g, idx))
			}
			if len(want) == 0 {
				t.Fatalf("no live regs table in kernel log:\n%s", log)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("live regs mismatch (-kernel +ours):\n%s", diff)
			}
		})
	}
}

func renderLive(g *CFG, i int) string {
	var b strings.Builder
	if s := g.SCC(i); s != 0 {
		b.WriteString(strconv.Itoa(s))
	}
	b.WriteByte('|')
	for r := 0; r < int(R10); r++ {
		if g.LiveRegsBefore(i)&(1<<r) != 0 {
			b.WriteByte(byte('0' + r))
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// TestAnalysisIgnoresScratchHistory: the analyses' temporary arrays come
// from a scratch the previous analysis used (scratch.go), longer or
// shorter, dirty. Every program's flags, successors, postorder,
// components and live registers are the same whatever was analysed
// before it.
func TestAnalysisIgnoresScratchHistory(t *testing.T) {
	var long []any
	for i := range 300 {
		long = append(long, movImm(R0, int32(i)), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2))
	}
	long = append(long, call(1), exit())
	progs := map[string][]Insn{"long loops": prog(long...), "loop callback": loopCallbackProg}
	for _, tc := range liveCases {
		progs[tc.name] = tc.prog
	}
	type result struct {
		Flags          []uint8
		Succ           [][2]int32
		Postorder      []int32
		PostorderStart []int
		SCC            []uint32
		Live           []uint16
	}
	analyse := func(p []Insn) result {
		g, err := AnalyzeWith(p, Options{HelperArgs: helperArgs})
		if err != nil {
			t.Fatal(err)
		}
		return result{g.flags, g.succ, g.postorder, g.postorderStart, g.scc, g.live}
	}
	for name, p := range progs {
		want := analyse(p)
		for before, q := range progs {
			analyse(q)
			if diff := cmp.Diff(want, analyse(p)); diff != "" {
				t.Errorf("%s analysed after %s differs (-alone +after):\n%s", name, before, diff)
			}
		}
	}
}
