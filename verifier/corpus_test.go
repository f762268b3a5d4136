package verifier_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// corpusDir is the shared corpus of real objects, next to the project.
const corpusDir = "../../shared/corpus"

// minCorpusPrograms guards against a sweep that silently verifies little:
// the corpus holds 349 programs the kernel accepted or rejected.
const minCorpusPrograms = 349

// corpusKernelMissing names the 6.18.y stable fixes the kernel that measured
// kernel-6.18.csv lacked. Its figures follow that build: with the bpf_loop
// SCC fix (upstream f597664454bd) a callback call is a loop head and keeps a
// checkpoint alive longer, so fp_relocation's peak_states is 4 on a build
// that has it and 3 in the corpus; and it let XDP programs call
// bpf_xdp_adjust_meta (Cilium's bpf_xdp_* objects do), which the
// 6.18.44-fc-v1300 build refuses.
var corpusKernelMissing = stablefix.Of(stablefix.CallbackLoopSCC, stablefix.XDPNoAdjustMeta)

type kernelRow struct {
	object, program, verdict, msg  string
	insns, maxStates, states, peak int
}

// TestCorpus verifies every program of the shared corpus that the kernel
// accepted or rejected, compares with kernel-6.18.csv and prints the
// figures. Every figure the README states is asserted: the same verdict on
// every program, no false accept, the kernel's message on every rejection,
// and on every program both accept the kernel's insn_processed,
// max_states_per_insn, total_states and peak_states exactly.
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
			num("insn_processed"), num("max_states_per_insn"), num("total_states"), num("peak_states")}
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
				res := verifier.Verify(obj, p, verifier.Options{MissingFixes: corpusKernelMissing})
				mu.Lock()
				outs = append(outs, outcome{k, res})
				mu.Unlock()
			}()
		}
	}
	wg.Wait()

	agree, falseAcc, msgN, msgOK, accN, exact, statesOK := 0, 0, 0, 0, 0, 0, 0
	for _, o := range outs {
		got := o.res.Verdict()
		name := o.k.object + " " + o.k.program
		switch {
		case got == o.k.verdict:
			agree++
		case got == "accepted":
			falseAcc++
			t.Errorf("FALSE ACCEPT %s: kernel says %q", name, o.k.msg)
		default:
			t.Errorf("verdict %s, kernel %s: %s: %v", got, o.k.verdict, name, o.res.Err)
		}
		if got == "rejected" && o.k.verdict == "rejected" {
			msgN++
			if strings.Contains(o.res.Err.Error(), o.k.msg) {
				msgOK++
			} else {
				t.Errorf("%s: message %q, kernel %q", name, o.res.Err, o.k.msg)
			}
			if o.res.Stats.InsnProcessed != o.k.insns {
				t.Errorf("%s: rejected after %d insns processed, kernel after %d", name, o.res.Stats.InsnProcessed, o.k.insns)
			}
		}
		if got != "accepted" || o.k.verdict != "accepted" {
			continue
		}
		accN++
		st := o.res.Stats
		if st.InsnProcessed == o.k.insns {
			exact++
		} else {
			t.Errorf("%s: insn_processed %d, kernel %d", name, st.InsnProcessed, o.k.insns)
		}
		want := [3]int{o.k.maxStates, o.k.states, o.k.peak}
		if got := [3]int{st.MaxStatesPerInsn, st.TotalStates, st.PeakStates}; got == want {
			statesOK++
		} else {
			t.Errorf("%s: max_states_per_insn, total_states, peak_states %v, kernel %v", name, got, want)
		}
	}
	n := len(outs)
	t.Logf("corpus programs: %d; verdict agreement %d; false accepts %d; message matches %d/%d", n, agree, falseAcc, msgOK, msgN)
	t.Logf("programs both accept: %d; insn_processed exact on %d; state counts exact on %d", accN, exact, statesOK)
	if n < minCorpusPrograms {
		t.Errorf("only %d corpus programs with a kernel verdict were verified, want at least %d", n, minCorpusPrograms)
	}
}
