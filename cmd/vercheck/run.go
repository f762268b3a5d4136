package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// Exit statuses.
const (
	exitAccepted = 0 // every program accepted
	exitRejected = 1 // some program rejected (or unsupported, or failed to load)
	exitUsage    = 2 // bad usage or unreadable input
	// exitFalseAccept: in --kernel mode, vercheck accepted a program the
	// kernel rejects, a soundness bug in vercheck.
	exitFalseAccept = 3
)

const usage = `usage: vercheck [flags] PATH...
       vercheck compare [flags] A.csv B.csv | A.o B.o
       vercheck compare --policies P1,P2,... [flags] PATH...

Verifies every program of each BPF ELF object (or of every object found in
each directory) as the Linux 6.18 verifier does, and prints one row per
program with the kernel's figures (insn_processed, max_states_per_insn,
total_states, peak_states), then a summary. With --kernel, each program is
also loaded into the running kernel and both sides are shown. Flags may
come before or after the paths.

Examples:
  vercheck prog.o -v                  why a program is rejected, kernel-style
  vercheck --format csv objs/ > a.csv veristat-style CSV of a directory
  vercheck --kernel prog.o            next to the running kernel
  vercheck compare a.csv b.csv        two runs side by side (veristat -C)

Exit status: 0 every program accepted; 1 some program rejected,
unsupported, over the time limit or unreadable in a directory; 2 bad usage,
an object named on the command line that cannot be read, or no objects
found; 3 with --kernel, vercheck accepted a program the kernel rejects.

Flags:
`

// commonFlags are the verification flags shared by the main command and
// compare.
type commonFlags struct {
	typeName, btfPath, kconfig, policy string
	// fixes is the --fixes flag; resolved into fixes by options.
	fixes string
	// applied is what options made of --fixes.
	applied            fixSemantics
	progFlags, license string
	timeout            time.Duration
	jobs               int
}

func (c *commonFlags) register(fset *flag.FlagSet) {
	fset.StringVar(&c.typeName, "type", "", "program type for sections whose name carries no type, and for the global functions of objects whose functions all live in .text (e.g. xdp, sched_cls, socket_filter)")
	fset.StringVar(&c.btfPath, "btf", "", "target BTF for CO-RE relocations (default /sys/kernel/btf/vmlinux)")
	fset.StringVar(&c.kconfig, "kconfig", "", "kernel config for extern __kconfig variables (default: the running kernel's)")
	fset.StringVar(&c.progFlags, "prog-flags", "", "program load flags added to those the section implies: names (strict_alignment, any_alignment, test_state_freq, sleepable, xdp_has_frags) and numbers, comma-separated")
	fset.StringVar(&c.license, "license", "", "license of objects without a license section, as a loader passing its own (e.g. GPL)")
	fset.DurationVar(&c.timeout, "timeout", 60*time.Second, "time limit per program (0: none)")
	fset.StringVar(&c.policy, "prune-policy", "default", "pruning policy: default, nodrop, miss>A*hit+B, free=branches|done|end (comma-combined)")
	fset.IntVar(&c.jobs, "j", runtime.GOMAXPROCS(0), "programs verified in parallel")
	fset.StringVar(&c.fixes, "fixes", fixesAuto, "6.18.y stable fixes to apply: auto (those of the running kernel; all where it cannot be asked), all, none, or a list ("+stablefix.Everything.String()+")")
}

// options turns the flags into the library's options: the command reads
// and verifies objects through the same entry points as a loader would.
func (c *commonFlags) options() (vercheck.Options, error) {
	policy, err := prune.ParsePolicy(c.policy)
	if err != nil {
		return vercheck.Options{}, err
	}
	flags, err := loader.ParseProgFlags(c.progFlags)
	if err != nil {
		return vercheck.Options{}, fmt.Errorf("--prog-flags: %w", err)
	}
	opts := vercheck.Options{TargetBTF: c.btfPath, Kconfig: c.kconfig, ProgFlags: flags, License: c.license, Parallel: c.jobs}
	if c.typeName != "" {
		pt, ok := parseProgType(c.typeName)
		if !ok {
			return vercheck.Options{}, fmt.Errorf("unknown program type %q", c.typeName)
		}
		opts.TypeOverride = pt
	}
	c.applied, err = resolveFixes(c.fixes)
	if err != nil {
		return vercheck.Options{}, err
	}
	opts.Verifier = verifier.Options{Policy: &policy, Timeout: c.timeout, MissingFixes: c.applied.Missing}
	return opts, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(args[1:], stdout, stderr)
	}
	fset := flag.NewFlagSet("vercheck", flag.ContinueOnError)
	fset.SetOutput(stderr)
	printUsage := func(w io.Writer) {
		fmt.Fprint(w, usage)
		fset.SetOutput(w)
		fset.PrintDefaults()
		fset.SetOutput(stderr)
	}
	// Parse errors are reported by the flag package; the full usage goes
	// to stdout on request only.
	fset.Usage = func() {}
	var common commonFlags
	common.register(fset)
	format := fset.String("format", "table", "output format: table, csv or json")
	verbose := fset.Bool("v", false, "print a kernel-style log of the failing path of each rejected program")
	verbose2 := fset.Bool("vv", false, "print the full kernel-style log (every state) of each program")
	withKernel := fset.Bool("kernel", false, "also load each program into the running kernel and compare")
	quiet := fset.Bool("q", false, "print no per-program rows: only diagnostics of rejections with -v, false accepts and the summary")
	version := fset.Bool("version", false, "print vercheck's version and exit")
	paths, err := parseInterleaved(fset, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout)
		return exitAccepted
	case err != nil:
		fmt.Fprintln(stderr, "run 'vercheck -h' for usage")
		return exitUsage
	case *version:
		writeVersion(stdout)
		return exitAccepted
	case len(paths) == 0:
		printUsage(stderr)
		return exitUsage
	case common.jobs < 1:
		fmt.Fprintf(stderr, "vercheck: -j %d: need at least one worker\n", common.jobs)
		return exitUsage
	}
	switch *format {
	case "table", "csv", "json":
	default:
		fmt.Fprintf(stderr, "vercheck: unknown format %q (want table, csv or json)\n", *format)
		return exitUsage
	}
	opts, err := common.options()
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	files, err := collect(paths)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "vercheck: no objects found in %s\n", strings.Join(paths, " "))
		return exitUsage
	}
	logLevel := 0
	if *verbose {
		logLevel = 1
	}
	if *verbose2 {
		logLevel = 2
	}
	release := ""
	if *withKernel {
		release, *withKernel = kernelReady(stderr)
	}
	opts.Verifier.LogLevel = logLevel
	cfg := runConfig{opts: opts, jobs: common.jobs, withKernel: *withKernel}
	if isTerminal(stderr) {
		cfg.progress = stderr
	}

	start := time.Now()
	rows, unreadable := verifyAll(files, cfg)
	sum := summarize(rows, time.Since(start))

	writeWarnings(stderr, rows)
	// The table carries its summary; machine formats keep stdout clean
	// and put it on stderr.
	summaryOut := stderr
	var werr error
	if *format != "table" {
		// False accepts are never left for the reader to find in a file.
		writeFalseAccepts(stderr, rows)
	}
	switch *format {
	case "csv":
		werr = writeCSV(stdout, rows, *withKernel)
	case "json":
		werr = writeJSON(stdout, rows)
	default:
		summaryOut = stdout
		if *quiet {
			writeFalseAccepts(stdout, rows)
			writeDiagnostics(stdout, rows, logLevel > 0)
			break
		}
		if *withKernel {
			writeKernelTable(stdout, rows, logLevel > 0)
		} else {
			writeTable(stdout, rows, logLevel > 0)
		}
	}
	if werr != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", werr)
		return exitUsage
	}
	fmt.Fprintln(summaryOut, sum)
	if *withKernel || logLevel > 0 {
		fmt.Fprintln(summaryOut, common.applied.Note)
	}
	if *withKernel {
		ks := summarizeKernel(rows, release)
		writeKernelSummary(summaryOut, ks)
		if len(ks.FalseAccepts) > 0 {
			return exitFalseAccept
		}
	}

	status := exitAccepted
	for _, r := range rows {
		if r.Verdict != verdictAccepted {
			status = exitRejected
		}
	}
	if slices.ContainsFunc(unreadable, func(f string) bool { return slices.Contains(paths, f) }) {
		// An object named on the command line could not be read: bad
		// input. One a directory sweep found is an error row (status 1),
		// as corpora hold foreign and malformed files.
		return exitUsage
	}
	return status
}

// kernelAvailable is kernel.Available, replaceable in tests.
var kernelAvailable = kernel.Available

// kernelReady checks once whether programs can be loaded; when they
// cannot it says so (once) and the run goes on with vercheck's figures.
func kernelReady(stderr io.Writer) (string, bool) {
	if err := kernelAvailable(); err != nil {
		fmt.Fprintf(stderr, "vercheck: --kernel: bpf() not permitted here, showing vercheck's figures only: %v\n", err)
		return "", false
	}
	release, err := kernel.Release()
	if err != nil {
		release = "unknown"
	}
	return release, true
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
