package progtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
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
		if g.Verdict == VerdictSetupFailed {
			t.Errorf("%s: %s: kernel could not load it: %s", e.File, e.Program, g.Error)
			continue
		}
		if !e.Matches(g.Accepted(), g.Error) {
			t.Errorf("%s: %s: expectation %+v disagrees with the kernel: %s %q", e.File, e.Program, e, g.Verdict, g.Error)
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
			r:    kernel.Result{Program: "p", SetupFailed: true, Err: "map m: operation not permitted", Release: "r"},
			want: Golden{File: "f.o", Program: "p", Verdict: VerdictSetupFailed, Error: "map m: operation not permitted", Release: "r"},
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
// must satisfy the expectations everywhere; the full records (statistics
// included) must equal the golden file when the kernel release is the one
// that produced it.
func TestGoldenLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	exps, golden := loadBoth(t)
	release, err := kernel.Release()
	if err != nil {
		t.Fatal(err)
	}
	objs := make(map[string]bool)
	for _, e := range exps {
		objs[e.Object()] = true
	}
	got := make(map[key]Golden)
	for obj := range objs {
		spec, err := ebpf.LoadCollectionSpec(filepath.Join(progsDir, obj))
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		results, err := kernel.LoadCollectionSpec(spec)
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		for _, r := range results {
			got[key{obj, r.Program}] = FromResult(obj, r)
		}
	}
	for _, e := range exps {
		k := key{e.Object(), e.Program}
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: %s: program not loaded", e.File, e.Program)
			continue
		}
		if !e.Matches(g.Accepted(), g.Error) {
			t.Errorf("%s: %s: expectation %+v disagrees with the live kernel: %s %q", e.File, e.Program, e, g.Verdict, g.Error)
		}
		want := golden[k]
		if want.Release != release {
			t.Logf("%s: %s: golden from %q, running %q: statistics not compared", e.File, e.Program, want.Release, release)
			continue
		}
		if diff := cmp.Diff(want, g); diff != "" {
			t.Errorf("%s: %s: golden record is stale (-golden +live):\n%s", e.File, e.Program, diff)
		}
	}
}
