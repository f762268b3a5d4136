package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vercheck/vercheck"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/verifier"
)

// policyRun is one program verified under one policy.
type policyRun struct {
	file, prog, policy string
	verdict            string
	insns, maxStates   int
	states, peak       int
	// alloc is the bytes the Go runtime allocated during the verification
	// (vercheck's memory cost, states and everything else).
	alloc uint64
	dur   time.Duration
}

// splitPolicies splits a --policies list: by semicolons when there are any
// (so that a policy may carry its own comma-separated options), else by
// commas.
func splitPolicies(s string) []string {
	sep := ","
	if strings.Contains(s, ";") {
		sep = ";"
	}
	var out []string
	for p := range strings.SplitSeq(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// measure verifies prog under vopts, recording time and allocation. It is
// meant to run alone: the allocation figure is process-wide. Each run
// starts cold: the verifier keeps recycled states in a sync.Pool between
// verifications, which two collections empty, so that the policy run
// first does not pay for the memory the next one reuses.
func measure(obj *loader.Object, prog *loader.Program, vopts verifier.Options) (*verifier.Result, uint64) {
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := verifier.Verify(obj, prog, vopts)
	runtime.ReadMemStats(&after)
	return res, after.TotalAlloc - before.TotalAlloc
}

// policyOutput is how --policies shows its runs: -s orders the programs
// by a figure of the first policy (_a) or the second (_b), -e chooses the
// figures of the CSV and JSON rows, --format picks table, CSV or JSON.
type policyOutput struct {
	keys   []sortKey
	figs   []string
	format string
}

func runPolicies(list string, paths []string, common commonFlags, filters []filter, out policyOutput, stdout, stderr io.Writer) int {
	names := splitPolicies(list)
	if len(names) == 0 || len(paths) == 0 {
		fmt.Fprintln(stderr, "vercheck compare: --policies needs policies and objects")
		return exitUsage
	}
	policies := make([]prune.Policy, len(names))
	for i, n := range names {
		p, err := prune.ParsePolicy(n)
		if err != nil {
			fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
			return exitUsage
		}
		p.Name = n
		policies[i] = p
	}
	opts, err := common.options()
	if err != nil {
		fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
		return exitUsage
	}
	files, err := loader.FindObjects(paths)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
		return exitUsage
	}
	status := exitAccepted
	var runs []policyRun
	for _, f := range files {
		obj, err := vercheck.OpenFile(f, &opts)
		if err != nil {
			fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
			status = exitUsage
			continue
		}
		for _, prog := range obj.Programs {
			if len(applyFilters([]pair{{file: f, prog: prog.Name}}, globsOnly(filters))) == 0 {
				continue
			}
			for i := range policies {
				o := opts.Verifier
				o.Policy = &policies[i]
				res, alloc := measure(obj, prog, o)
				runs = append(runs, policyRun{
					file: f, prog: prog.Name, policy: names[i], verdict: res.Verdict(),
					insns: res.Stats.InsnProcessed, maxStates: res.Stats.MaxStatesPerInsn,
					states: res.Stats.TotalStates, peak: res.Stats.PeakStates,
					alloc: alloc, dur: res.Stats.Duration,
				})
			}
		}
	}
	runs = sortPolicyRuns(runs, len(policies), out.keys)
	err = nil
	switch out.format {
	case "csv":
		err = writePolicyCSV(stdout, runs, out.figs)
	case "json":
		err = writePolicyJSON(stdout, runs, out.figs)
	default:
		writePolicyTable(stdout, runs, len(policies))
		writePolicyTotals(stdout, runs, names)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
		return exitUsage
	}
	return status
}

// record is a run's figures by canonical name.
func (r policyRun) record() record {
	return record{file: r.file, prog: r.prog, values: map[string]string{
		figVerdict: r.verdict, figInsns: strconv.Itoa(r.insns), figMaxStates: strconv.Itoa(r.maxStates),
		figStates: strconv.Itoa(r.states), figPeak: strconv.Itoa(r.peak),
		figDuration: strconv.FormatInt(r.dur.Microseconds(), 10),
	}}
}

// sortPolicyRuns orders the programs (each a group of perProg runs, one
// per policy) by keys, the first policy's figures being side A and the
// second's side B.
func sortPolicyRuns(runs []policyRun, perProg int, keys []sortKey) []policyRun {
	if len(keys) == 0 || perProg == 0 {
		return runs
	}
	groups := make([]pair, 0, len(runs)/perProg)
	start := make(map[*record]int)
	for i := 0; i+perProg <= len(runs); i += perProg {
		a := runs[i].record()
		p := pair{file: runs[i].file, prog: runs[i].prog, a: &a}
		if perProg > 1 {
			b := runs[i+1].record()
			p.b = &b
		}
		start[p.a] = i
		groups = append(groups, p)
	}
	sortPairs(groups, keys)
	out := make([]policyRun, 0, len(runs))
	for _, g := range groups {
		i := start[g.a]
		out = append(out, runs[i:i+perProg]...)
	}
	return out
}

// policyRow is one run in the CSV and JSON output.
type policyRow struct {
	File      string            `json:"file_name"`
	Program   string            `json:"prog_name"`
	Policy    string            `json:"policy"`
	Figures   map[string]string `json:"figures"`
	Allocated uint64            `json:"allocated_bytes"`
}

func policyRows(runs []policyRun, figs []string) []policyRow {
	rows := make([]policyRow, len(runs))
	for i, r := range runs {
		rec := r.record()
		f := make(map[string]string, len(figs))
		for _, fig := range figs {
			f[fig] = rec.values[fig]
		}
		rows[i] = policyRow{File: r.file, Program: r.prog, Policy: r.policy, Figures: f, Allocated: r.alloc}
	}
	return rows
}

func writePolicyCSV(w io.Writer, runs []policyRun, figs []string) error {
	cw := csv.NewWriter(w)
	head := append([]string{figFile, figProg, "policy"}, figs...)
	recs := [][]string{append(head, "allocated_bytes")}
	for _, r := range policyRows(runs, figs) {
		rec := []string{r.File, r.Program, r.Policy}
		for _, fig := range figs {
			rec = append(rec, r.Figures[fig])
		}
		recs = append(recs, append(rec, strconv.FormatUint(r.Allocated, 10)))
	}
	if err := cw.WriteAll(recs); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

func writePolicyJSON(w io.Writer, runs []policyRun, figs []string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(policyRows(runs, figs)); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// globsOnly keeps the name globs of filters: figure filters make no sense
// before a program has been verified.
func globsOnly(filters []filter) []filter {
	var out []filter
	for _, f := range filters {
		if f.isGlob() {
			out = append(out, f)
		}
	}
	return out
}

const mebibyte = 1 << 20

// writePolicyTable prints each program's runs, each policy against the
// first one given (the baseline).
func writePolicyTable(w io.Writer, runs []policyRun, perProg int) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT\tPROGRAM\tPOLICY\tVERDICT\tINSNS\tINSNS%\tMAX_ST\tSTATES\tPEAK\tALLOC_MiB\tTIME\tSPEEDUP")
	for i, r := range runs {
		base := runs[i-i%perProg]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%d\t%.1f\t%s\t%s\n",
			r.file, r.prog, r.policy, r.verdict, r.insns, fmtPct(pct(float64(base.insns), float64(r.insns))),
			r.maxStates, r.states, r.peak, float64(r.alloc)/mebibyte, r.dur.Round(time.Microsecond),
			fmtRatio(ratio(float64(base.dur), float64(r.dur))))
	}
	tw.Flush()
}

func fmtPct(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", p)
}

// writePolicyTotals sums each policy over all programs.
func writePolicyTotals(w io.Writer, runs []policyRun, names []string) {
	type total struct {
		progs, accepted int
		insns, states   int64
		maxStates, peak int
		alloc           uint64
		dur             time.Duration
	}
	totals := make([]total, len(names))
	for i, r := range runs {
		t := &totals[i%len(names)]
		t.progs++
		if r.verdict == verdictAccepted {
			t.accepted++
		}
		t.insns += int64(r.insns)
		t.states += int64(r.states)
		t.maxStates = max(t.maxStates, r.maxStates)
		t.peak = max(t.peak, r.peak)
		t.alloc += r.alloc
		t.dur += r.dur
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "POLICY\tPROGRAMS\tACCEPTED\tINSNS\tINSNS%\tMAX_ST\tSTATES\tMAX_PEAK\tALLOC_MiB\tTIME\tSPEEDUP")
	for i, t := range totals {
		b := totals[0]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%.1f\t%s\t%s\n", names[i], t.progs, t.accepted, t.insns,
			fmtPct(pct(float64(b.insns), float64(t.insns))), t.maxStates, t.states, t.peak,
			float64(t.alloc)/mebibyte, t.dur.Round(time.Millisecond), fmtRatio(ratio(float64(b.dur), float64(t.dur))))
	}
	tw.Flush()
}
