package soundness_test

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/vercheck/vercheck/internal/gen"
	"github.com/vercheck/vercheck/internal/soundness"
)

// defaultPrograms keeps go test fast; VERCHECK_SOUNDNESS_N asks for more.
const (
	defaultPrograms = 300
	inputsPerProg   = 30
	// mistakes is the generator's rate of unsafe constructs: enough for
	// the verifier to reject some programs, few enough that most pass.
	mistakes = 0.05
	// minAcceptedShare is the floor on programs vercheck accepts: only
	// accepted programs are run concretely, so a verifier that rejected
	// everything would pass with no evidence at all. About half are
	// accepted at this mistake rate (55,767 of 100,000 on 2026-11-29).
	minAcceptedShare = 0.25
	// minRunShare is the floor on concrete runs per accepted program,
	// as a share of inputsPerProg: inputs the interpreter cannot use are
	// skipped, but most must run.
	minRunShare = 0.5
)

func numPrograms(t *testing.T) int {
	if s := os.Getenv("VERCHECK_SOUNDNESS_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("VERCHECK_SOUNDNESS_N=%q: %v", s, err)
		}
		return n
	}
	if testing.Short() {
		return defaultPrograms / 10
	}
	return defaultPrograms
}

// TestSoundness generates programs and checks every accepted one by
// concrete execution.
func TestSoundness(t *testing.T) {
	n := numPrograms(t)
	start := uint64(1)
	if s := os.Getenv("VERCHECK_SOUNDNESS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("VERCHECK_SOUNDNESS_SEED=%q: %v", s, err)
		}
		start = v
	}
	reps := make([]soundness.Report, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				seed := start + uint64(i)
				p, err := gen.Generate(seed, gen.Config{Mistakes: mistakes})
				if err != nil {
					reps[i].Findings = []soundness.Finding{{Seed: seed, Kind: "generate", Msg: err.Error()}}
					continue
				}
				reps[i] = soundness.Check(p, inputsPerProg, rand.New(rand.NewPCG(seed, 1)))
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	verdicts := map[string]int{}
	strict, runs, skipped, findings := 0, 0, 0, 0
	for _, rep := range reps {
		verdicts[rep.Verdict]++
		runs += rep.Runs
		skipped += rep.Skipped
		if rep.Strict {
			strict++
		}
		for _, f := range rep.Findings {
			findings++
			if findings <= 10 {
				t.Errorf("%v", f)
			}
		}
	}
	t.Logf("%d programs: %v; %d strict; %d runs (%d skipped); %d findings", n, verdicts, strict, runs, skipped, findings)
	accepted := verdicts["accepted"]
	if float64(accepted) < minAcceptedShare*float64(n) {
		t.Errorf("only %d of %d programs accepted, want at least %.0f%%: the check ran on too little", accepted, n, 100*minAcceptedShare)
	}
	if float64(runs) < minRunShare*float64(accepted*inputsPerProg) {
		t.Errorf("only %d concrete runs for %d accepted programs, want at least %.0f%% of %d each", runs, accepted, 100*minRunShare, inputsPerProg)
	}
}
