package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
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
also loaded into the running kernel and both sides are shown.

Flags:
`

// commonFlags are the verification flags shared by the main command and
// compare.
type commonFlags struct {
	typeName, btfPath, kconfig, policy string
	timeout                            time.Duration
	jobs                               int
}

func (c *commonFlags) register(fset *flag.FlagSet) {
	fset.StringVar(&c.typeName, "type", "", "program type for sections whose name carries no type (e.g. xdp, sched_cls, socket_filter)")
	fset.StringVar(&c.btfPath, "btf", "", "target BTF for CO-RE relocations (default /sys/kernel/btf/vmlinux)")
	fset.StringVar(&c.kconfig, "kconfig", "", "kernel config for extern __kconfig variables (default: the running kernel's)")
	fset.DurationVar(&c.timeout, "timeout", 60*time.Second, "time limit per program (0: none)")
	fset.StringVar(&c.policy, "prune-policy", "default", "pruning policy: default, nodrop, miss>A*hit+B, free=branches|done|end (comma-combined)")
	fset.IntVar(&c.jobs, "j", runtime.GOMAXPROCS(0), "programs verified in parallel")
}

// options turns the flags into loader and verifier options.
func (c *commonFlags) options() (loader.Options, verifier.Options, error) {
	policy, err := prune.ParsePolicy(c.policy)
	if err != nil {
		return loader.Options{}, verifier.Options{}, err
	}
	lopts := loader.Options{TargetBTF: c.btfPath, Kconfig: c.kconfig}
	if c.typeName != "" {
		pt, ok := parseProgType(c.typeName)
		if !ok {
			return loader.Options{}, verifier.Options{}, fmt.Errorf("unknown program type %q", c.typeName)
		}
		lopts.TypeOverride = pt
	}
	return lopts, verifier.Options{Policy: &policy, Timeout: c.timeout}, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(args[1:], stdout, stderr)
	}
	fset := flag.NewFlagSet("vercheck", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, usage)
		fset.PrintDefaults()
	}
	var common commonFlags
	common.register(fset)
	format := fset.String("format", "table", "output format: table, csv or json")
	verbose := fset.Bool("v", false, "print a kernel-style log of the failing path of each rejected program")
	verbose2 := fset.Bool("vv", false, "print the full kernel-style log (every state) of each program")
	withKernel := fset.Bool("kernel", false, "also load each program into the running kernel and compare")
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
	lopts, vopts, err := common.options()
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	files, err := loader.FindObjects(fset.Args())
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	if *verbose {
		vopts.LogLevel = 1
	}
	if *verbose2 {
		vopts.LogLevel = 2
	}
	release := ""
	if *withKernel {
		release, *withKernel = kernelReady(stderr)
	}
	cfg := runConfig{lopts: lopts, vopts: vopts, jobs: common.jobs, withKernel: *withKernel}
	if isTerminal(stderr) {
		cfg.progress = stderr
	}

	start := time.Now()
	rows, loadFailed := verifyAll(files, cfg)
	sum := summarize(rows, time.Since(start))

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
		if *withKernel {
			writeKernelTable(stdout, rows, vopts.LogLevel > 0)
		} else {
			writeTable(stdout, rows, vopts.LogLevel > 0)
		}
	}
	if werr != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", werr)
		return exitUsage
	}
	fmt.Fprintln(summaryOut, sum)
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
	if loadFailed {
		// Rows of the readable objects are printed; the run still
		// reports that some input could not be read.
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
