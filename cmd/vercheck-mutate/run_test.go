package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/mutate"
	"github.com/vercheck/vercheck/internal/oracle"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// funcsObject has bpf-to-bpf calls and global functions, so its programs
// carry BTF function records.
const funcsObject = "../../testdata/progs/global_func.o"

func TestRunUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if diff := cmp.Diff(exitUsage, run([]string{"-bogus"}, &out, &errb)); diff != "" {
		t.Errorf("exit status mismatch (-want +got):\n%s", diff)
	}
}

// testSeed loads program name of funcsObject as a seed, without judging
// it.
func testSeed(t *testing.T, name string) *seed {
	t.Helper()
	return testSeedIn(t, funcsObject, name)
}

// testSeedIn makes program name of the object at path a seed.
func testSeedIn(t *testing.T, path, name string) *seed {
	t.Helper()
	obj, err := loader.Open(path, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range obj.Programs {
		if p.Name != name {
			continue
		}
		code, err := insn.FromAsm(p.Instructions)
		if err != nil {
			t.Fatal(err)
		}
		return &seed{name: name, obj: obj, prog: p, code: code, asmIndex: asmIndexes(p.Instructions, len(code))}
	}
	t.Fatalf("%s has no program %s", path, name)
	return nil
}

// TestSeedProgram: the unmutated seed comes back with its own lines and
// function records, and an instruction inserted at a function's start
// moves the function's record (and a source line) onto it.
func TestSeedProgram(t *testing.T) {
	s := testSeed(t, "global_ptr_checked")
	p, err := s.program(mutate.Identity(s.code))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.prog.Lines.Slice(), p.Lines.Slice()); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(funcStarts(s.prog), funcStarts(p)); diff != "" {
		t.Errorf("function starts mismatch (-want +got):\n%s", diff)
	}
	if len(s.prog.Funcs) < 2 {
		t.Fatalf("%s has %d functions, want a subprogram", s.name, len(s.prog.Funcs))
	}
	sub := s.prog.Funcs[1].Start
	m := mutate.Identity(s.code)
	for i := 0; len(m.Insns) == len(s.code); i++ {
		if i == maxDraws {
			t.Fatalf("no insertion at insn %d in %d mutants", sub, maxDraws)
		}
		// Draw mutants until one inserts an instruction at the subprogram.
		m = mutate.Mutate(s.code, rand.New(rand.NewPCG(uint64(i), 0)), 1, s.env)
		if len(m.Insns) != len(s.code)+1 || m.Target[sub] != sub || m.Origin[sub] != -1 {
			m = mutate.Identity(s.code)
		}
	}
	p, err = s.program(m)
	if err != nil {
		t.Fatal(err)
	}
	want := funcStarts(s.prog)
	for i := 1; i < len(want); i++ {
		if want[i] >= sub {
			want[i]++
		}
	}
	want[1] = sub
	if diff := cmp.Diff(want, funcStarts(p)); diff != "" {
		t.Errorf("function starts after %v mismatch (-want +got):\n%s", m.Changes, diff)
	}
	if p.Lines.At(sub) == (loader.Line{}) {
		t.Errorf("no source line at the moved function start %d", sub)
	}
}

// maxDraws bounds the mutants TestSeedProgram draws.
const maxDraws = 100_000

func funcStarts(p *loader.Program) []int {
	var out []int
	for _, f := range p.Funcs {
		out = append(out, f.Start)
	}
	return out
}

// TestSeedProgramLoads: the kernel loads a rebuilt seed (its function and
// line records are consistent) and both verifiers agree on it.
func TestSeedProgramLoads(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel not available: %v", err)
	}
	s := testSeed(t, "global_ptr_checked")
	p, err := s.program(mutate.Identity(s.code))
	if err != nil {
		t.Fatal(err)
	}
	if o := oracle.Judge(s.obj, p, oracle.Options{Timeout: time.Minute}); o.Class != oracle.BothAccept {
		t.Errorf("class %v (%s), want both-accept", o.Class, o.Reason())
	}
}

// TestRunSmall runs a few mutants against the live kernel and checks that
// the run does not depend on -j.
func TestRunSmall(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel not available: %v", err)
	}
	args := []string{"-n", "60", "-seed", "3", "-gen", "10", "-max-seed-insns", "200", "../../testdata/progs/xdp_parse.o", funcsObject}
	var outputs []string
	for _, jobs := range []string{"1", "2"} {
		var out, errb bytes.Buffer
		code := run(append([]string{"-j", jobs, "-out", t.TempDir()}, args...), &out, &errb)
		if code != exitOK && code != exitFalseAccept {
			t.Fatalf("-j %s: exit %d: %s", jobs, code, errb.String())
		}
		if !strings.Contains(out.String(), "60 mutants of") {
			t.Fatalf("-j %s: no summary in output:\n%s", jobs, out.String())
		}
		outputs = append(outputs, tableOf(out.String()))
	}
	if diff := cmp.Diff(outputs[0], outputs[1]); diff != "" {
		t.Errorf("-j 1 and -j 2 differ (-j1 +j2):\n%s", diff)
	}
}

// TestRejectedSeeds: with -rejected, a program both verifiers reject with
// the same message becomes a seed too (l8_ptr_eq_one_reg.o holds one
// accepted and one rejected program).
func TestRejectedSeeds(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel not available: %v", err)
	}
	tests := []struct {
		flags []string
		want  string
	}{
		{nil, "1 seeds (1 with edge accesses) of 2 programs"},
		{[]string{"-rejected"}, "2 seeds (2 with edge accesses) of 2 programs"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		args := append(tt.flags, "-n", "1", "-gen", "0", "-out", t.TempDir(), "../../testdata/progs/l8_ptr_eq_one_reg.o")
		if code := run(args, &out, &errb); code != exitOK && code != exitFalseAccept {
			t.Fatalf("%v: exit %d: %s", tt.flags, code, errb.String())
		}
		first, _, _ := strings.Cut(out.String(), ";")
		if diff := cmp.Diff(tt.want, first); diff != "" {
			t.Errorf("%v: seeds (-want +got):\n%s", tt.flags, diff)
		}
	}
}

// tableOf returns the output from the agreement table on, without the
// run's timing line.
func tableOf(out string) string {
	_, table, _ := strings.Cut(out, "kernel+")
	return table
}

// TestStopOnSignal: a SIGTERM makes stop report true (the run then ends
// with its tally, as at the end of -duration), and says so.
func TestStopOnSignal(t *testing.T) {
	var stderr bytes.Buffer
	f := &fuzzer{stderr: &stderr}
	if f.stop() {
		t.Fatal("stop before any signal")
	}
	remove := f.stopOnSignal()
	defer remove()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !f.stop() {
		if time.Now().After(deadline) {
			t.Fatal("stop still false 5 s after SIGTERM")
		}
		time.Sleep(time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "finishing the mutants under way") {
		t.Errorf("no word of the signal: %q", stderr.String())
	}
}

// TestNoteKernelBug checks that a kernel verdict reporting a verifier
// bug is counted and printed, and any other verdict is not.
func TestNoteKernelBug(t *testing.T) {
	var out bytes.Buffer
	f := &fuzzer{stdout: &out}
	s := &seed{name: "obj:prog"}
	f.noteKernelBug(trial{label: "1", seed: s, outcome: oracle.Outcome{Kernel: kernel.Result{Err: "R1 !read_ok"}}})
	f.noteKernelBug(trial{label: "2", seed: s, outcome: oracle.Outcome{Kernel: kernel.Result{Err: "verifier bug: scc exit: no visit info for call chain (1)"}}})
	jumps := &verifier.Result{Err: errors.New("The sequence of 8193 jumps is too complex.")}
	f.noteKernelBug(trial{label: "3", seed: s, outcome: oracle.Outcome{Vercheck: jumps,
		Kernel: kernel.Result{Errno: syscall.EFAULT, Err: "kernel could not load (EFAULT): load p: bad address (hit verifier bug, increase LogSizeStart to fit the log and check dmesg)"}}})
	if diff := cmp.Diff(1, f.kernelBugs); diff != "" {
		t.Errorf("kernel bugs mismatch (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(out.String(), "mutant 2 (obj:prog): the kernel's verifier reports a bug") {
		t.Errorf("output %q names no kernel bug of mutant 2", out.String())
	}
}

// TestOperatorNames checks -ops: names, the resource family, errors.
func TestOperatorNames(t *testing.T) {
	got, err := operatorNames("swap,resources")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append([]string{"swap"}, mutate.ResourceOperators()...), got); diff != "" {
		t.Errorf("operators mismatch (-want +got):\n%s", diff)
	}
	if got, err := operatorNames("load flags,map definition"); err != nil || !slices.Equal(got, []string{mutate.LoadFlagsOperator, mutate.MapDefOperator}) {
		t.Errorf("the load-flag and map-definition operators: %q, %v", got, err)
	}
	if got, err := operatorNames("program type,sleepable"); err != nil || !slices.Equal(got, []string{mutate.ProgTypeOperator, mutate.SleepableOperator}) {
		t.Errorf("the program-type and sleepable operators: %q, %v", got, err)
	}
	if _, err := operatorNames("no such operator"); err == nil {
		t.Error("an unknown operator is accepted")
	}
}

// TestKernelStopInsn: the last instruction line of a kernel log.
func TestKernelStopInsn(t *testing.T) {
	log := "0: R1=ctx() R10=fp0\n0: (bf) r6 = r1\n1: (61) r0 = *(u32 *)(r6 +80)\ninvalid bpf_context access off=80 size=4\n"
	got, ok := kernelStopInsn(log)
	if diff := cmp.Diff(1, got); diff != "" || !ok {
		t.Errorf("stop insn mismatch (-want +got):\n%s (ok %v)", diff, ok)
	}
	if _, ok := kernelStopInsn("processed 0 insns"); ok {
		t.Error("a log without instructions has a stop")
	}
}

// TestSeedProgramType: a mutant's program type and sleepable toggle reach
// the program the verifiers get; a new program type drops the attach
// target and flags, which belong to the old one.
func TestSeedProgramType(t *testing.T) {
	s := testSeed(t, "global_ptr_checked")
	s.prog.AttachTo, s.prog.Flags = "target", loader.FlagSleepable
	m := mutate.Identity(s.code)
	m.ToggleSleepable = true
	p, err := s.program(m)
	if err != nil {
		t.Fatal(err)
	}
	if p.Flags != 0 || p.Type != s.prog.Type || p.AttachTo != "target" {
		t.Errorf("toggled: type %v, flags %#x, target %q; want %v, 0, the seed's", p.Type, p.Flags, p.AttachTo, s.prog.Type)
	}
	m = mutate.Identity(s.code)
	m.ProgType = &mutate.ProgType{Type: ebpf.CGroupSockAddr, Attach: ebpf.AttachCGroupInet6Connect}
	if p, err = s.program(m); err != nil {
		t.Fatal(err)
	}
	if p.Type != ebpf.CGroupSockAddr || p.AttachType != ebpf.AttachCGroupInet6Connect || p.AttachTo != "" || p.Flags != 0 {
		t.Errorf("retyped: %v/%v, target %q, flags %#x; want CGroupSockAddr/CGroupInet6Connect, none, 0", p.Type, p.AttachType, p.AttachTo, p.Flags)
	}
	if s.prog.Flags != loader.FlagSleepable || s.prog.AttachTo != "target" {
		t.Errorf("the seed's program changed: flags %#x, target %q", s.prog.Flags, s.prog.AttachTo)
	}
}

// TestSeedMapDefinition: a mutant's map definitions reach the object both
// verifiers are given, read-only and write-only maps as the loader reads
// their flags, and the seed's object keeps its own.
func TestSeedMapDefinition(t *testing.T) {
	s := testSeedIn(t, "../../testdata/progs/a12_sext_fill.o", "a12_sext_fill_s8_fits")
	const (
		rdonlyProg = 1 << 7
		wronlyProg = 1 << 8
	)
	tests := []struct {
		flags uint32
		want  string // vercheck's message; "" for an accept
	}{
		{0, ""},
		{rdonlyProg, ""},
		{wronlyProg, "read from map forbidden, value_size=8 off=0 size=1"},
	}
	k := slices.IndexFunc(s.obj.Maps, func(m *loader.Map) bool { return m != nil && m.Name == "a12_sf_map" })
	if k < 0 {
		t.Fatal("no map a12_sf_map")
	}
	for _, tt := range tests {
		m := mutate.Identity(s.code)
		m.MapDefs = []mutate.MapDef{{Index: k, MaxEntries: 2, Flags: tt.flags}}
		obj := s.object(m)
		if got := obj.Maps[k]; got.MaxEntries != 2 || got.Flags != tt.flags || got.ReadOnly != (tt.flags == rdonlyProg) {
			t.Errorf("flags %#x: map %s has max_entries %d, flags %#x, read-only %v", tt.flags, got.Name, got.MaxEntries, got.Flags, got.ReadOnly)
		}
		p, err := s.program(m)
		if err != nil {
			t.Fatal(err)
		}
		res := verifier.Verify(obj, p, verifier.Options{})
		got := ""
		if res.Err != nil {
			got = verifier.DecisiveLine(res.Err)
		}
		if got != tt.want {
			t.Errorf("flags %#x: vercheck says %q, want %q", tt.flags, got, tt.want)
		}
	}
	if m := s.obj.Maps[k]; m.MaxEntries != 1 || m.Flags != 0 || m.ReadOnly {
		t.Errorf("the seed's map changed: max_entries %d, flags %#x, read-only %v", m.MaxEntries, m.Flags, m.ReadOnly)
	}
}

// TestMutantRedrawsSeed: with -ops naming an operator only some seeds can
// take, each mutant comes from one of those, changed, instead of being
// the unchanged program of a seed the operator cannot apply to.
func TestMutantRedrawsSeed(t *testing.T) {
	withData := testSeedIn(t, "../../testdata/progs/s26_snprintf_fmt.o", "s26_bare_p_then_d_two_args")
	without := testSeed(t, "global_ptr_checked")
	for _, s := range []*seed{withData, without} {
		s.env = mutate.Env{Maps: mapInfos(s.obj), Operators: []string{mutate.RodataOperator}}
		// Edge placements, which any run may draw, do not count.
		s.env.Edges = mutate.FindEdges(s.code, mutate.Inputs(rand.New(rand.NewPCG(1, 1)), mapShapes(s.obj), contextOf(s.prog.Type)))
	}
	if len(without.env.Edges) == 0 {
		t.Fatalf("%s has no edges to place", without.name)
	}
	f := &fuzzer{seeds: []*seed{without, withData}, cfg: config{seed: 7}}
	for i := range 64 {
		s, m, _ := f.mutant(i)
		if s != withData || len(m.DataEdits) == 0 {
			t.Fatalf("mutant %d: seed %s, data edits %v, want %s with one", i, s.name, m.DataEdits, withData.name)
		}
	}
}

// selfCheckObject holds fentry and fexit programs vercheck accepts, which
// some kernel builds (this machine's) refuse to load.
const selfCheckObject = "testdata/selfcheck.o"

// TestSelfCheckSeeds: with -self-check, the programs vercheck accepts and
// the kernel cannot load become seeds too, and their mutants vercheck
// accepts are checked against its own search without checkpoints (the
// summary counts them). Where the kernel loads them, they were seeds
// already and the flag adds none.
func TestSelfCheckSeeds(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel not available: %v", err)
	}
	obj, err := loader.Open(selfCheckObject, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	noVerdict := 0
	for _, p := range obj.Programs {
		if o := oracle.Judge(obj, p, oracle.Options{}); o.Class == oracle.KernelNoLoad && o.Vercheck.Accepted {
			noVerdict++
		}
	}
	n := len(obj.Programs)
	tests := []struct {
		flags []string
		seeds int
	}{
		{nil, n - noVerdict},
		{[]string{"-self-check"}, n},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		args := append(tt.flags, "-n", "40", "-seed", "5", "-gen", "0", "-out", t.TempDir(), selfCheckObject)
		code := run(args, &out, &errb)
		if tt.seeds == 0 {
			if code != exitUsage {
				t.Errorf("%v: exit %d with no seed, want %d", tt.flags, code, exitUsage)
			}
			continue
		}
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s%s", tt.flags, code, out.String(), errb.String())
		}
		first, _, _ := strings.Cut(out.String(), " seeds")
		if diff := cmp.Diff(fmt.Sprint(tt.seeds), first); diff != "" {
			t.Errorf("%v: seeds (-want +got):\n%s", tt.flags, diff)
		}
		if tt.flags != nil && noVerdict > 0 && !strings.Contains(out.String(), "no kernel verdict, vercheck accepts: ") {
			t.Errorf("%v: no self-checked mutants in the summary:\n%s", tt.flags, out.String())
		}
	}
}

// timed is an outcome of a program both verifiers took insns instructions
// on, vercheck in v and the kernel in k.
func timed(insns int, v, k time.Duration) oracle.Outcome {
	res := &verifier.Result{Accepted: true}
	res.Stats.InsnProcessed = insns
	res.Stats.Duration = v
	return oracle.Outcome{Class: oracle.BothAccept, Vercheck: res, Kernel: kernel.Result{Accepted: true, InsnProcessed: insns, VerificationTime: k}}
}

func TestLowestRatio(t *testing.T) {
	const big = oracle.BigInsns
	tests := []struct {
		name      string
		first     oracle.Outcome
		again     []oracle.Outcome
		wantRatio float64
		wantV     time.Duration
	}{
		{"a later try is lower", timed(big, 30*time.Millisecond, 10*time.Millisecond),
			[]oracle.Outcome{timed(big, 25*time.Millisecond, 10*time.Millisecond), timed(big, 12*time.Millisecond, 10*time.Millisecond)}, 1.2, 12 * time.Millisecond},
		{"the first stays lowest", timed(big, 25*time.Millisecond, 10*time.Millisecond),
			[]oracle.Outcome{timed(big, 30*time.Millisecond, 10*time.Millisecond), timed(big, 26*time.Millisecond, 10*time.Millisecond)}, 2.5, 25 * time.Millisecond},
		{"a try without a ratio is passed over", timed(big, 30*time.Millisecond, 10*time.Millisecond),
			[]oracle.Outcome{timed(big, time.Millisecond, 0), timed(big-1, time.Millisecond, 10*time.Millisecond)}, 3, 30 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := 0
			got, ratio := lowestRatio(tt.first, len(tt.again), func() oracle.Outcome { i++; return tt.again[i-1] })
			if i != len(tt.again) {
				t.Errorf("judged again %d times, want %d", i, len(tt.again))
			}
			if diff := cmp.Diff([]any{tt.wantRatio, tt.wantV}, []any{ratio, got.Vercheck.Stats.Duration}); diff != "" {
				t.Errorf("lowestRatio mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
