package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/profile"
	"github.com/vercheck/vercheck/verifier"
	"github.com/vercheck/vercheck/why"
)

// Verdicts of a row. The first six are verifier.Result.Verdict's; a row
// for an object that could not be read says "error" too.
const (
	verdictAccepted    = "accepted"
	verdictRejected    = "rejected"
	verdictUnsupported = "unsupported"
	verdictTimeout     = "timeout"
	verdictMemory      = "memory"
	verdictError       = "error"
	// verdictNotLoaded is the kernel's side when it gave no verdict: the
	// program never reached its verifier (a map could not be created) or
	// the kernel refused it before verifying (EPERM for a program type
	// this build does not permit). The error column has the errno.
	verdictNotLoaded = "not-loaded"
)

// row is one output line: a program's result, or an object that failed to
// load.
type row struct {
	File      string `json:"file_name"`
	Program   string `json:"prog_name"`
	Section   string `json:"section"`
	Type      string `json:"prog_type"`
	Verdict   string `json:"verdict"`
	Insns     int    `json:"total_insns"`
	MaxStates int    `json:"max_states_per_insn"`
	States    int    `json:"total_states"`
	Peak      int    `json:"peak_states"`
	Duration  int64  `json:"duration_us"`
	// Hits, Misses and Evictions count prune-point comparisons that
	// pruned, that did not, and stored states dropped; StackDepth is the
	// sum of the subprograms' stack depths (veristat's stack_depth) and
	// StackDepths each one's.
	Hits        int   `json:"hits"`
	Misses      int   `json:"misses"`
	Evictions   int   `json:"evictions"`
	StackDepth  int   `json:"stack_depth"`
	StackDepths []int `json:"stack_depths,omitempty"`
	// Xlated is an accepted program's length after the kernel's rewrites
	// (bpftool's xlated length in instructions), 0 when not modelled.
	Xlated int    `json:"xlated_insns,omitempty"`
	Error  string `json:"error,omitempty"`
	// Errno is the error number bpf(BPF_PROG_LOAD) answers the rejection
	// with (verifier.Result.Errno, by name), which loaders branch on.
	Errno string `json:"errno,omitempty"`
	// decisive is what the kernel's log would show as the reason for
	// Error (verifier.DecisiveLine), which --kernel compares.
	decisive string
	Insn     int    `json:"error_insn,omitempty"`
	Where    string `json:"error_line,omitempty"`
	Hint     string `json:"hint,omitempty"`
	// Budget explains a rejection at a complexity limit: where the
	// processed instructions went and what kept states apart.
	Budget []string `json:"budget,omitempty"`
	// Warnings are what the loader assumed or repaired to read the
	// object, on the object's first row only.
	Warnings []string `json:"warnings,omitempty"`
	// Expect compares the program with its own tags in --expect mode.
	Expect *expectRow `json:"expect,omitempty"`
	// Kernel holds the live kernel's figures in --kernel mode.
	Kernel *kernelRow `json:"kernel,omitempty"`
	Log    string     `json:"-"`
	// Profile is the search's profile with --profile or --profile-out.
	Profile *profile.Profile `json:"-"`
	// Why explains a rejection with --why.
	Why *why.Explanation `json:"why,omitempty"`
}

// kernelRow is the kernel's side of a --kernel row.
type kernelRow struct {
	Verdict   string `json:"verdict"`
	Insns     int    `json:"total_insns"`
	MaxStates int    `json:"max_states_per_insn"`
	States    int    `json:"total_states"`
	Peak      int    `json:"peak_states"`
	Duration  int64  `json:"duration_us"`
	Xlated    int    `json:"xlated_insns,omitempty"`
	Error     string `json:"error,omitempty"`
	// Errno is the error number of a rejection or refused load, by name.
	Errno string `json:"errno,omitempty"`
	Log   string `json:"-"`
	// LogDivergence is, with -vv, where vercheck's level-2 log first
	// parts from the kernel's (package logdiff): "" when they agree
	// state by state.
	LogDivergence string `json:"log_divergence,omitempty"`
	// LogsCompared says the two level-2 logs were compared.
	LogsCompared bool `json:"-"`
}

func toRow(res *verifier.Result) row {
	r := row{
		File:      res.Object,
		Program:   res.Program,
		Section:   res.Section,
		Type:      res.Type.String(),
		Verdict:   res.Verdict(),
		Insns:     res.Stats.InsnProcessed,
		MaxStates: res.Stats.MaxStatesPerInsn,
		States:    res.Stats.TotalStates,
		Peak:      res.Stats.PeakStates,
		Duration:  res.Stats.Duration.Microseconds(),
		Hits:      res.Stats.Hits,
		Misses:    res.Stats.Misses,
		Evictions: res.Stats.Evicted,
		Log:       res.Log,
		Profile:   res.Profile,
		Why:       res.Why,
	}
	for _, d := range res.Stats.StackDepth {
		r.StackDepth += d
	}
	r.StackDepths = res.Stats.StackDepth
	r.Xlated = res.Stats.XlatedInsns
	if res.Err != nil {
		r.Error = res.Err.Error()
		r.decisive = verifier.DecisiveLine(res.Err)
		if errno := res.Errno(); errno != 0 {
			r.Errno = verifier.ErrnoName(errno)
		}
		var re *verifier.RejectError
		if errors.As(res.Err, &re) {
			r.Insn = re.Insn
			r.Where = re.Where()
			r.Hint = re.Hint()
		}
	}
	return r
}

func toKernelRow(k kernel.Result) *kernelRow {
	kr := &kernelRow{
		Insns:     k.InsnProcessed,
		MaxStates: k.MaxStatesPerInsn,
		States:    k.TotalStates,
		Peak:      k.PeakStates,
		Duration:  k.VerificationTime.Microseconds(),
		Xlated:    k.XlatedInsns,
		Error:     k.Err,
		Log:       k.Log,
	}
	if k.Errno != 0 {
		kr.Errno = verifier.ErrnoName(k.Errno)
	}
	switch {
	case k.Accepted:
		kr.Verdict = verdictAccepted
	case k.NotLoaded:
		kr.Verdict = verdictNotLoaded
	default:
		kr.Verdict = verdictRejected
	}
	return kr
}

// csvHeader names the columns as veristat does where it has the figure
// (file_name, prog_name, verdict, total_insns, max_states_per_insn,
// total_states, peak_states, stack_depth), so that `vercheck compare` and veristat -C
// read either tool's files.
var csvHeader = []string{"file_name", "prog_name", "section", "prog_type", "verdict", "total_insns", "max_states_per_insn", "total_states", "peak_states", "duration_us", "error", "hits", "misses", "evictions", "stack_depth"}

// csvKernelHeader is appended in --kernel mode.
var csvKernelHeader = []string{"kernel_verdict", "kernel_total_insns", "kernel_max_states_per_insn", "kernel_total_states", "kernel_peak_states", "kernel_duration_us", "kernel_error"}

func writeCSV(w io.Writer, rows []row, withKernel bool) error {
	cw := csv.NewWriter(w)
	header := csvHeader
	if withKernel {
		header = append(append([]string(nil), csvHeader...), csvKernelHeader...)
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	for _, r := range rows {
		rec := []string{r.File, r.Program, r.Section, r.Type, r.Verdict,
			strconv.Itoa(r.Insns), strconv.Itoa(r.MaxStates), strconv.Itoa(r.States), strconv.Itoa(r.Peak),
			strconv.FormatInt(r.Duration, 10), r.Error,
			strconv.Itoa(r.Hits), strconv.Itoa(r.Misses), strconv.Itoa(r.Evictions), strconv.Itoa(r.StackDepth)}
		if withKernel {
			k := r.Kernel
			if k == nil {
				k = &kernelRow{}
			}
			rec = append(rec, k.Verdict, strconv.Itoa(k.Insns), strconv.Itoa(k.MaxStates), strconv.Itoa(k.States),
				strconv.Itoa(k.Peak), strconv.FormatInt(k.Duration, 10), k.Error)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeJSON(w io.Writer, rows []row) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if rows == nil {
		rows = []row{}
	}
	if err := enc.Encode(rows); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

func usDuration(us int64) time.Duration { return time.Duration(us) * time.Microsecond }

func writeTable(w io.Writer, rows []row, withLog bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT\tPROGRAM\tTYPE\tVERDICT\tINSNS\tMAX_STATES/INSN\tSTATES\tPEAK\tDURATION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", r.File, r.Program, r.Type, r.Verdict,
			r.Insns, r.MaxStates, r.States, r.Peak, usDuration(r.Duration))
	}
	tw.Flush()
	writeDiagnostics(w, rows, withLog)
}

// writeDiagnostics prints one go vet style line per failing row, with the
// log when asked.
func writeDiagnostics(w io.Writer, rows []row, withLog bool) {
	for _, r := range rows {
		if r.Error == "" && r.Verdict != verdictAccepted {
			// A rejection the kernel logs no message for (a struct_ops
			// type's store hook, for one): the log shows where.
			r.Error = "rejected without a message"
		}
		if r.Error == "" {
			// Only -vv keeps the log of an accepted program.
			if withLog && r.Log != "" {
				fmt.Fprintf(w, "%s: %s: accepted\n%s\n", r.File, r.Program, strings.TrimRight(r.Log, "\n"))
			}
			continue
		}
		where := r.File
		if r.Where != "" {
			where = r.File + ": " + r.Where
		}
		if r.Program != "" {
			fmt.Fprintf(w, "%s: %s: %s\n", where, r.Program, firstLines(r.Error))
		} else {
			fmt.Fprintf(w, "%s: %s\n", where, firstLines(r.Error))
		}
		if r.Hint != "" && r.Why == nil {
			// --why gives its own hint, keyed on the cause it found.
			fmt.Fprintf(w, "\thint: %s\n", r.Hint)
		}
		for _, b := range r.Budget {
			fmt.Fprintf(w, "\tbudget: %s\n", b)
		}
		if r.Why != nil {
			// Errors of w surface where the table is flushed.
			_ = r.Why.WriteText(w, "\t")
		}
		if withLog && r.Log != "" {
			fmt.Fprintf(w, "%s\n", strings.TrimRight(r.Log, "\n"))
		}
	}
}

// maxErrorLines keeps an error readable in a table: internal errors carry
// a stack trace.
const maxErrorLines = 3

// firstLines joins the first lines of an error message.
func firstLines(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > maxErrorLines {
		lines = lines[:maxErrorLines]
	}
	return strings.Join(lines, "; ")
}

// summary totals a corpus run.
type summary struct {
	Programs, Accepted, Rejected, Unsupported, Timeouts, OverMemory, Errors int
	// LoadFailures counts objects that could not be read at all.
	LoadFailures int
	Insns        int64
	// CPU is the sum of the programs' verification times; Wall the run's.
	CPU, Wall time.Duration
}

func summarize(rows []row, wall time.Duration) summary {
	s := summary{Wall: wall}
	for _, r := range rows {
		if r.Program == "" {
			s.LoadFailures++
			continue
		}
		s.Programs++
		switch r.Verdict {
		case verdictAccepted:
			s.Accepted++
		case verdictRejected:
			s.Rejected++
		case verdictUnsupported:
			s.Unsupported++
		case verdictTimeout:
			s.Timeouts++
		case verdictMemory:
			s.OverMemory++
		default:
			s.Errors++
		}
		s.Insns += int64(r.Insns)
		s.CPU += usDuration(r.Duration)
	}
	return s
}

func (s summary) String() string {
	timeouts := ""
	if s.Timeouts > 0 {
		timeouts = fmt.Sprintf(", %d over the time limit", s.Timeouts)
	}
	if s.OverMemory > 0 {
		timeouts += fmt.Sprintf(", %d over the state-memory limit", s.OverMemory)
	}
	return fmt.Sprintf("%d programs: %d accepted, %d rejected, %d unsupported%s, %d errors; %d objects unreadable; insn_processed %d; verification time %s (wall %s)",
		s.Programs, s.Accepted, s.Rejected, s.Unsupported, timeouts, s.Errors, s.LoadFailures, s.Insns,
		roundDuration(s.CPU), roundDuration(s.Wall))
}

// roundDuration rounds d for a summary line: to the millisecond from one
// second up, to the microsecond below, so that a small run does not read
// "0s".
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// writeWarnings prints the loader's warnings, once per object.
func writeWarnings(w io.Writer, rows []row) {
	for _, r := range rows {
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "%s: warning: %s\n", r.File, warn)
		}
	}
}
