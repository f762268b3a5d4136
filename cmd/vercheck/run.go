package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/verifier"
)

// Exit statuses.
const (
	exitAccepted = 0 // every program accepted
	exitRejected = 1 // some program rejected (or unsupported, or failed to load)
	exitUsage    = 2 // bad usage or unreadable input
)

const usage = `usage: vercheck [flags] PATH...

Verifies every program of each BPF ELF object (or of every object found in
each directory) as the Linux 6.18 verifier does, and prints one row per
program with the kernel's figures (insn_processed, max_states_per_insn,
total_states, peak_states).

Flags:
`

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
	Error     string `json:"error,omitempty"`
	Insn      int    `json:"error_insn,omitempty"`
	Where     string `json:"error_line,omitempty"`
	Log       string `json:"-"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("vercheck", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, usage)
		fset.PrintDefaults()
	}
	format := fset.String("format", "table", "output format: table, csv or json")
	verbose := fset.Bool("v", false, "print a kernel-style log of the failing path of each rejected program")
	verbose2 := fset.Bool("vv", false, "print the full kernel-style log (every state) of each program")
	typeName := fset.String("type", "", "program type for sections whose name carries no type (e.g. xdp, sched_cls, socket_filter)")
	btfPath := fset.String("btf", "", "target BTF for CO-RE relocations (default /sys/kernel/btf/vmlinux)")
	timeout := fset.Duration("timeout", 60*time.Second, "time limit per program (0: none)")
	policyStr := fset.String("prune-policy", "default", "pruning policy: default, nodrop, miss>A*hit+B, free=branches|done|end (comma-combined)")
	jobs := fset.Int("j", runtime.GOMAXPROCS(0), "programs verified in parallel")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitAccepted
		}
		return exitUsage
	}
	if fset.NArg() == 0 {
		fset.Usage()
		return exitUsage
	}
	switch *format {
	case "table", "csv", "json":
	default:
		fmt.Fprintf(stderr, "vercheck: unknown format %q (want table, csv or json)\n", *format)
		return exitUsage
	}
	policy, err := prune.ParsePolicy(*policyStr)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	lopts := loader.Options{TargetBTF: *btfPath}
	if *typeName != "" {
		pt, ok := parseProgType(*typeName)
		if !ok {
			fmt.Fprintf(stderr, "vercheck: unknown program type %q\n", *typeName)
			return exitUsage
		}
		lopts.TypeOverride = pt
	}
	files, err := collect(fset.Args())
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	logLevel := 0
	if *verbose {
		logLevel = 1
	}
	if *verbose2 {
		logLevel = 2
	}
	vopts := verifier.Options{Policy: &policy, Timeout: *timeout, LogLevel: logLevel}
	rows, loadFailed := verifyAll(files, lopts, vopts, *jobs)

	switch *format {
	case "csv":
		writeCSV(stdout, rows)
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rows)
	default:
		writeTable(stdout, rows, logLevel > 0)
	}
	status := exitAccepted
	for _, r := range rows {
		if r.Verdict != "accepted" {
			status = exitRejected
		}
	}
	if loadFailed {
		// Rows of the readable objects are printed; the run still
		// reports that some input could not be read.
		return exitUsage
	}
	return status
}

// parseProgType maps a type name (as in cilium/ebpf's String or the
// kernel's snake case) to a program type.
func parseProgType(s string) (ebpf.ProgramType, bool) {
	norm := strings.ReplaceAll(strings.ToLower(s), "_", "")
	for pt := ebpf.UnspecifiedProgram; pt <= ebpf.Netfilter+8; pt++ {
		if strings.ToLower(pt.String()) == norm {
			return pt, true
		}
	}
	switch norm {
	case "socket", "socketfilter":
		return ebpf.SocketFilter, true
	case "tc", "classifier", "schedcls":
		return ebpf.SchedCLS, true
	}
	return 0, false
}

// collect expands directories into the object files they contain.
func collect(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && isObjectCandidate(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// isObjectCandidate skips files in object directories that are plainly
// not objects (sources, docs, data).
func isObjectCandidate(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".o", ".elf", ".bpf", "":
		base := filepath.Base(path)
		return base != "Makefile" && !strings.HasPrefix(base, ".")
	}
	return false
}

// verifyAll loads every object and verifies its programs on jobs workers;
// rows come back in input order.
func verifyAll(files []string, lopts loader.Options, vopts verifier.Options, jobs int) ([]row, bool) {
	if jobs < 1 {
		jobs = 1
	}
	type task struct {
		obj  *loader.Object
		prog *loader.Program
		slot int
	}
	perFile := make([][]row, len(files))
	var tasks []task
	var slots [][]*row
	loadFailed := false
	for i, f := range files {
		obj, err := loader.Open(f, lopts)
		if err != nil {
			loadFailed = true
			perFile[i] = []row{{File: f, Verdict: "error", Error: err.Error()}}
			continue
		}
		perFile[i] = make([]row, len(obj.Programs))
		ptrs := make([]*row, len(obj.Programs))
		for j, p := range obj.Programs {
			ptrs[j] = &perFile[i][j]
			tasks = append(tasks, task{obj: obj, prog: p, slot: len(slots)})
			slots = append(slots, nil)
			slots[len(slots)-1] = []*row{ptrs[j]}
		}
	}
	ch := make(chan task)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range ch {
				res := verifier.Verify(t.obj, t.prog, vopts)
				*slots[t.slot][0] = toRow(res)
			}
		}()
	}
	for _, t := range tasks {
		ch <- t
	}
	close(ch)
	wg.Wait()
	var rows []row
	for _, r := range perFile {
		rows = append(rows, r...)
	}
	return rows, loadFailed
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
		Log:       res.Log,
	}
	if res.Err != nil {
		r.Error = res.Err.Error()
		var re *verifier.RejectError
		if errors.As(res.Err, &re) {
			r.Insn = re.Insn
			r.Where = re.Where()
		}
	}
	return r
}

var csvHeader = []string{"file_name", "prog_name", "section", "prog_type", "verdict", "total_insns", "max_states_per_insn", "total_states", "peak_states", "duration_us", "error"}

func writeCSV(w io.Writer, rows []row) {
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	for _, r := range rows {
		_ = cw.Write([]string{r.File, r.Program, r.Section, r.Type, r.Verdict,
			strconv.Itoa(r.Insns), strconv.Itoa(r.MaxStates), strconv.Itoa(r.States), strconv.Itoa(r.Peak),
			strconv.FormatInt(r.Duration, 10), r.Error})
	}
	cw.Flush()
}

func writeTable(w io.Writer, rows []row, withLog bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OBJECT\tPROGRAM\tTYPE\tVERDICT\tINSNS\tMAX_STATES/INSN\tSTATES\tPEAK\tDURATION")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", r.File, r.Program, r.Type, r.Verdict,
			r.Insns, r.MaxStates, r.States, r.Peak, time.Duration(r.Duration)*time.Microsecond)
	}
	tw.Flush()
	for _, r := range rows {
		if r.Error == "" {
			continue
		}
		where := r.Where
		if where == "" {
			where = r.File
		} else {
			where = r.File + ": " + where
		}
		if r.Program != "" {
			fmt.Fprintf(w, "%s: %s: %s\n", where, r.Program, firstLines(r.Error))
		} else {
			fmt.Fprintf(w, "%s: %s\n", where, firstLines(r.Error))
		}
		if withLog && r.Log != "" {
			fmt.Fprintf(w, "%s\n", strings.TrimRight(r.Log, "\n"))
		}
	}
}

// firstLines keeps an error message readable in a table (internal errors
// carry a stack trace).
func firstLines(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[:3]
	}
	return strings.Join(lines, "; ")
}
