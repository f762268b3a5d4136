package verifier_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/profile"
	"github.com/vercheck/vercheck/verifier"
)

// checkProfile verifies every program of the object at path with and
// without a profile and checks that profiling changes nothing and that
// the profile adds up to the kernel's figures.
func checkProfile(t *testing.T, path string) {
	obj, err := loader.Open(path, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range obj.Programs {
		plain := verifier.Verify(obj, p, verifier.Options{})
		res := verifier.Verify(obj, p, verifier.Options{Profile: true})
		if diff := cmp.Diff(plain.Stats, res.Stats, cmpopts.IgnoreFields(verifier.Stats{}, "Duration")); diff != "" {
			t.Errorf("%s: profiling changed the figures (-without +with):\n%s", p.Name, diff)
		}
		if plain.Verdict() != res.Verdict() {
			t.Errorf("%s: profiling changed the verdict: %s, %s", p.Name, plain.Verdict(), res.Verdict())
		}
		if res.Profile == nil {
			continue // refused before the walk
		}
		checkProfileSums(t, p.Name, res)
	}
}

// checkProfileSums checks that the profile's parts add up to the result's
// figures and that every miss has a named reason.
func checkProfileSums(t *testing.T, name string, res *verifier.Result) {
	t.Helper()
	pr := res.Profile
	st := res.Stats
	want := profile.Counters{Visits: st.InsnProcessed, StatesAdded: st.TotalStates, Hits: st.Hits, Misses: st.Misses,
		Evictions: st.Evicted, MaxStates: st.MaxStatesPerInsn}
	var sum, bySubprog profile.Counters
	for _, in := range pr.Insns {
		sum = addCounters(sum, in.Counters)
		reasons := 0
		for _, r := range in.MissReasons {
			reasons += r.Count
			if r.Kind == "unknown" || r.Kind == "none" {
				t.Errorf("%s: insn %d: %d misses of kind %s (%s)", name, in.Insn, r.Count, r.Kind, r.Text)
			}
		}
		if reasons != in.Misses {
			t.Errorf("%s: insn %d: reasons count %d misses, want %d", name, in.Insn, reasons, in.Misses)
		}
	}
	for _, sp := range pr.Subprogs {
		bySubprog = addCounters(bySubprog, sp.Counters)
	}
	total := profile.Counters{Visits: pr.InsnProcessed, StatesAdded: pr.StatesAdded, Hits: pr.Hits, Misses: pr.Misses,
		Evictions: pr.Evictions, MaxStates: pr.MaxStates}
	for what, got := range map[string]profile.Counters{"instructions": sum, "subprograms": bySubprog, "totals": total} {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: %s do not add up to the figures (-figures +profile):\n%s", name, what, diff)
		}
	}
}

// addCounters sums counters as the profile does (MaxStates: maximum).
func addCounters(a, b profile.Counters) profile.Counters {
	return profile.Counters{Visits: a.Visits + b.Visits, StatesAdded: a.StatesAdded + b.StatesAdded, Hits: a.Hits + b.Hits,
		Misses: a.Misses + b.Misses, Evictions: a.Evictions + b.Evictions, MaxStates: max(a.MaxStates, b.MaxStates)}
}

// TestProfileProgs checks the profile of every program of testdata/progs.
func TestProfileProgs(t *testing.T) {
	paths, err := filepath.Glob("../testdata/progs/*.o")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no objects in testdata/progs: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) { checkProfile(t, path) })
	}
}

// TestProfileCorpus checks the profile of every program of the largest
// corpus object, bpf_lxc.o.
func TestProfileCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus object skipped in -short mode")
	}
	path := filepath.Join(corpusDir, "ebpf-samples/cilium/bpf_lxc.o")
	if _, err := loader.Open(path, loader.Options{}); err != nil {
		t.Skipf("corpus object not present: %v", err)
	}
	checkProfile(t, path)
}

// TestProfileLoop checks what the profile says of a loop with a constant
// trip count: where it is, how often it was iterated, and that its states
// stay apart because of its counter.
func TestProfileLoop(t *testing.T) {
	obj, err := loader.Open("../testdata/progs/bounded_loop.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := verifier.Verify(obj, obj.Programs[0], verifier.Options{Profile: true})
	if len(res.Profile.Loops) != 1 {
		t.Fatalf("%d loops, want 1", len(res.Profile.Loops))
	}
	l := res.Profile.Loops[0]
	type loopView struct {
		Line, Entries, Iterations int
		Reason                    string
	}
	got := loopView{Line: l.Line, Entries: l.Entries, Iterations: l.Iterations}
	if len(l.MissReasons) > 0 {
		got.Reason = l.MissReasons[0].Kind + " " + l.MissReasons[0].Where
	}
	// 16 iterations: the loop is entered once and taken back 15 times;
	// every earlier iteration on the path differs in the counter.
	want := loopView{Line: 14, Entries: 1, Iterations: 15, Reason: "range R2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loop mismatch (-want +got):\n%s", diff)
	}
}

// TestProfileDrainedIterator checks the reason the profile gives for the
// misses at an iterator's next call once the iterator is drained: no
// comparison is made, the kernel's loop check needing an active iterator.
func TestProfileDrainedIterator(t *testing.T) {
	obj, err := loader.Open("../testdata/progs/s31_iter_drained.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := obj.Program("s31_iter_repoll_counted")
	if p == nil {
		t.Fatal("no program s31_iter_repoll_counted")
	}
	res := verifier.Verify(obj, p, verifier.Options{Profile: true})
	checkProfileSums(t, p.Name, res)
	kinds := map[string]int{}
	for _, in := range res.Profile.Insns {
		for _, r := range in.MissReasons {
			kinds[r.Kind] += r.Count
		}
	}
	if got := kinds["iter_inactive"]; got < res.Stats.Misses*9/10 {
		t.Errorf("%d of %d misses are iter_inactive, want nearly all; reasons %v", got, res.Stats.Misses, kinds)
	}
}
