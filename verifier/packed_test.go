package verifier

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vercheck/vercheck/loader"
)

// packedFigures is what must not depend on how held states are stored.
type packedFigures struct {
	Verdict, Msg                                            string
	Insns, MaxStates, TotalStates, PeakStates, Hits, Misses int
}

// TestPackedPendingSameFigures verifies every program of testdata/progs
// with every pending branch packed and with the default (dense up to the
// 64th): the stack layout of held states must change no verdict, message
// or figure. Few of these programs ever hold 64 pending branches, so the
// default alone would leave the packed path to the pathological ones.
func TestPackedPendingSameFigures(t *testing.T) {
	objs, err := filepath.Glob("../testdata/progs/*.o")
	if err != nil || len(objs) == 0 {
		t.Fatalf("no objects in testdata/progs: %v", err)
	}
	figs := func(res *Result) packedFigures {
		f := packedFigures{Verdict: res.Verdict(), Insns: res.Stats.InsnProcessed,
			MaxStates: res.Stats.MaxStatesPerInsn, TotalStates: res.Stats.TotalStates,
			PeakStates: res.Stats.PeakStates, Hits: res.Stats.Hits, Misses: res.Stats.Misses}
		if res.Err != nil {
			f.Msg = res.Err.Error()
		}
		return f
	}
	progs := 0
	for _, path := range objs {
		obj, err := loader.Open(path, loader.Options{})
		if err != nil {
			continue // objects the loader refuses are other tests' business
		}
		for _, p := range obj.Programs {
			dense := Verify(obj, p, Options{})
			packed := Verify(obj, p, Options{packAllPending: true})
			if diff := cmp.Diff(figs(dense), figs(packed)); diff != "" {
				t.Errorf("%s/%s: packed pending branches change the result (-dense +packed):\n%s", filepath.Base(path), p.Name, diff)
			}
			progs++
		}
	}
	if progs < 1000 {
		t.Errorf("only %d programs compared", progs)
	}
}
