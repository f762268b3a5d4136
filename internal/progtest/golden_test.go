package progtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// progsDir is the checked-in program directory, relative to this package.
var progsDir = filepath.Join("..", "..", "testdata", "progs")

// key identifies one program of one object.
type key struct{ file, program string }

// loadBoth reads the checked-in expectations and golden records.
func loadBoth(t *testing.T) ([]Expectation, map[key]Golden) {
	t.Helper()
	exps, err := Load(progsDir)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := ReadGolden(filepath.Join(progsDir, GoldenName))
	if err != nil {
		t.Fatal(err)
	}
	byKey := make(map[key]Golden, len(gs))
	for _, g := range gs {
		byKey[key{g.File, g.Program}] = g
	}
	return exps, byKey
}

func TestExpectationsAgreeWithGolden(t *testing.T) {
	exps, golden := loadBoth(t)
	if len(exps) == 0 {
		t.Fatal("no expectations found")
	}
	seen := make(map[key]bool)
	for _, e := range exps {
		k := key{e.Object(), e.Program}
		seen[k] = true
		g, ok := golden[k]
		if !ok {
			t.Errorf("%s: %s: no golden record (regenerate with go run ./cmd/vercheck-golden)", e.File, e.Program)
			continue
		}
		if g.Verdict == VerdictNotLoaded {
			t.Errorf("%s: %s: kernel could not load it: %s", e.File, e.Program, g.Error)
			continue
		}
		missing, err := g.Missing()
		if err != nil {
			t.Error(err)
			continue
		}
		if want := e.On(missing); !want.Matches(g.Accepted(), g.Error) {
			t.Errorf("%s: %s: expectation %+v (kernel lacking %v) disagrees with the kernel: %s %q", e.File, e.Program, want, missing, g.Verdict, g.Error)
		}
	}
	for k := range golden {
		if !seen[k] {
			t.Errorf("%s: %s: golden record without an expectation in the C source", k.file, k.program)
		}
	}
}

func TestObjectsCheckedIn(t *testing.T) {
	srcs, err := filepath.Glob(filepath.Join(progsDir, "*.c"))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range srcs {
		obj := src[:len(src)-len(".c")] + ".o"
		if _, err := os.Stat(obj); err != nil {
			t.Errorf("%s: object missing (run make -C testdata/progs): %v", filepath.Base(src), err)
		}
	}
}

func TestGoldenRoundTrip(t *testing.T) {
	in := []Golden{
		{File: "b.o", Program: "p", Verdict: VerdictAccepted, InsnProcessed: 3, StackDepth: "0", Release: "6.18"},
		{File: "a.o", Program: "q", Verdict: VerdictRejected, Error: "R0 !read_ok", InsnProcessed: 1, StackDepth: "0", Release: "6.18"},
	}
	var buf bytes.Buffer
	if err := WriteGolden(&buf, in); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), GoldenName)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGolden(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Golden{in[1], in[0]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("golden round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestFromResult(t *testing.T) {
	tests := []struct {
		name string
		r    kernel.Result
		want Golden
	}{
		{
			name: "accepted",
			r:    kernel.Result{Program: "p", Accepted: true, InsnProcessed: 9, TotalStates: 2, PeakStates: 2, MaxStatesPerInsn: 1, StackDepth: "8", Release: "r"},
			want: Golden{File: "f.o", Program: "p", Verdict: VerdictAccepted, InsnProcessed: 9, TotalStates: 2, PeakStates: 2, MaxStatesPerInsn: 1, StackDepth: "8", Release: "r"},
		},
		{
			name: "rejected",
			r:    kernel.Result{Program: "p", Err: "R0 !read_ok", InsnProcessed: 1, StackDepth: "0", Release: "r"},
			want: Golden{File: "f.o", Program: "p", Verdict: VerdictRejected, Error: "R0 !read_ok", InsnProcessed: 1, StackDepth: "0", Release: "r"},
		},
		{
			name: "setup failed",
			r:    kernel.Result{Program: "p", NotLoaded: true, Err: "map m: operation not permitted", Release: "r"},
			want: Golden{File: "f.o", Program: "p", Verdict: VerdictNotLoaded, Error: "map m: operation not permitted", Release: "r"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FromResult("f.o", tt.r)); diff != "" {
				t.Errorf("FromResult mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGoldenLive reloads every object into the running kernel. The verdicts
// must satisfy the expectations wherever the kernel gives one; the full
// records (statistics included) must equal the golden records made by the
// running kernel's build, and differences from records of other builds are
// reported. Programs this kernel cannot load are listed, not failed.
func TestGoldenLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	exps, golden := loadBoth(t)
	release, err := kernel.Release()
	if err != nil {
		t.Fatal(err)
	}
	missing, err := stablefix.Probe()
	if err != nil {
		t.Fatalf("probe the running kernel's stable fixes: %v", err)
	}
	live := loadLive(t, exps, missing)
	for _, e := range exps {
		g, ok := live[key{e.Object(), e.Program}]
		if !ok {
			t.Errorf("%s: %s: program not loaded", e.File, e.Program)
			continue
		}
		if want := e.On(missing); g.Verdict != VerdictNotLoaded && !want.Matches(g.Accepted(), g.Error) {
			t.Errorf("%s: %s: expectation %+v (kernel lacking %v) disagrees with the live kernel: %s %q", e.File, e.Program, want, missing, g.Verdict, g.Error)
		}
	}
	checkedIn := make([]Golden, 0, len(golden))
	for _, g := range golden {
		checkedIn = append(checkedIn, g)
	}
	SortGolden(checkedIn)
	liveRecs := make([]Golden, 0, len(live))
	for _, g := range live {
		liveRecs = append(liveRecs, g)
	}
	reportGoldenDiff(t, DiffGolden(checkedIn, liveRecs, release), release)
}

// loadLive loads every object of the expectations into the kernel, which
// lacks the stable fixes missing.
func loadLive(t *testing.T, exps []Expectation, missing stablefix.Set) map[key]Golden {
	t.Helper()
	objs := make(map[string]bool)
	for _, e := range exps {
		objs[e.Object()] = true
	}
	got := make(map[key]Golden)
	for obj := range objs {
		spec, _, err := loader.LoadCollectionSpec(filepath.Join(progsDir, obj))
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		// As libbpf loads an object (maps with the object's BTF), the
		// loader vercheck models for objects.
		results, err := kernel.Options{}.LoadCollectionSpec(spec)
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		for _, r := range results {
			g := FromResult(obj, r)
			g.MissingFixes = missing.String()
			got[key{obj, r.Program}] = g
		}
	}
	return got
}

// reportGoldenDiff fails on stale records of the running build and sums up
// the rest in a few lines: the programs this kernel cannot load, and the
// figures that changed since the records of other builds.
func reportGoldenDiff(t *testing.T, d GoldenDiff, release string) {
	t.Helper()
	for _, s := range d.Stale {
		t.Errorf("golden record of %s is stale (regenerate with go run ./cmd/vercheck-golden): %s", release, s)
	}
	if len(d.Reprobed) > 0 {
		t.Logf("%d records of %s predate the probes run now (same figures; regenerate with go run ./cmd/vercheck-golden):%s",
			len(d.Reprobed), release, indentLines(d.Reprobed))
	}
	if len(d.NotLoaded) > 0 {
		t.Logf("%d programs the running kernel (%s) could not load, not compared:\n  %s",
			len(d.NotLoaded), release, strings.Join(d.NotLoaded, "\n  "))
	}
	if d.OtherBuild > 0 {
		t.Logf("%d of %d records come from other kernel builds than %s; %d differ here:%s",
			d.OtherBuild, d.Compared, release, len(d.Drift), indentLines(d.Drift))
	}
}

// indentLines puts each line on its own indented line.
func indentLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	return b.String()
}

func TestKeepVerdicts(t *testing.T) {
	old := []Golden{
		{File: "a.o", Program: "iter", Verdict: VerdictAccepted, InsnProcessed: 4, Release: "build1"},
		{File: "a.o", Program: "gone", Verdict: VerdictNotLoaded, Error: "EPERM", Release: "build1"},
		{File: "a.o", Program: "plain", Verdict: VerdictAccepted, InsnProcessed: 2, Release: "build1"},
	}
	fresh := []Golden{
		{File: "a.o", Program: "iter", Verdict: VerdictNotLoaded, Error: "EPERM", Release: "build2"},
		{File: "a.o", Program: "gone", Verdict: VerdictNotLoaded, Error: "EPERM", Release: "build2"},
		{File: "a.o", Program: "plain", Verdict: VerdictAccepted, InsnProcessed: 3, Release: "build2"},
		{File: "a.o", Program: "new", Verdict: VerdictNotLoaded, Error: "EPERM", Release: "build2"},
	}
	merged, kept := KeepVerdicts(fresh, old)
	want := []Golden{old[0], fresh[1], fresh[2], fresh[3]}
	if diff := cmp.Diff(want, merged); diff != "" {
		t.Errorf("merged records mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Golden{old[0]}, kept); diff != "" {
		t.Errorf("kept records mismatch (-want +got):\n%s", diff)
	}
}

func TestDiffGolden(t *testing.T) {
	rec := func(prog, verdict string, insns int, release string) Golden {
		return Golden{File: "a.o", Program: prog, Verdict: verdict, InsnProcessed: insns, Release: release}
	}
	checkedIn := []Golden{
		rec("same", VerdictAccepted, 5, "here"),
		rec("stale", VerdictAccepted, 5, "here"),
		rec("drift", VerdictAccepted, 5, "there"),
		rec("steady", VerdictRejected, 1, "there"),
		rec("eperm", VerdictAccepted, 4, "there"),
		rec("missing", VerdictAccepted, 4, "here"),
		rec("reprobed", VerdictAccepted, 4, "here"),
		rec("reprobed-stale", VerdictAccepted, 4, "here"),
	}
	checkedIn[6].MissingFixes = "a"
	checkedIn[7].MissingFixes = "a"
	live := []Golden{
		rec("same", VerdictAccepted, 5, "here"),
		rec("stale", VerdictAccepted, 6, "here"),
		rec("drift", VerdictAccepted, 7, "here"),
		rec("steady", VerdictRejected, 1, "here"),
		{File: "a.o", Program: "eperm", Verdict: VerdictNotLoaded, Error: "kernel could not load (EPERM)", Release: "here"},
		{File: "a.o", Program: "reprobed", Verdict: VerdictAccepted, InsnProcessed: 4, Release: "here", MissingFixes: "a,b"},
		{File: "a.o", Program: "reprobed-stale", Verdict: VerdictAccepted, InsnProcessed: 5, Release: "here", MissingFixes: "a,b"},
	}
	want := GoldenDiff{
		Stale: []string{
			"a.o: stale: insn_processed 5 -> 6",
			"a.o: missing: not loaded by the live run",
			"a.o: reprobed-stale: insn_processed 4 -> 5, kernel_missing_fixes a -> a,b",
		},
		Reprobed:   []string{"a.o: reprobed: kernel_missing_fixes a -> a,b"},
		Drift:      []string{"a.o: drift: insn_processed 5 -> 7"},
		NotLoaded:  []string{"a.o: eperm: kernel could not load (EPERM)"},
		Compared:   6,
		OtherBuild: 2,
	}
	if diff := cmp.Diff(want, DiffGolden(checkedIn, live, "here")); diff != "" {
		t.Errorf("DiffGolden mismatch (-want +got):\n%s", diff)
	}
}
