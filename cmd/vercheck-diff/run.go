package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/vercheck/vercheck/internal/gen"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/oracle"
	"github.com/vercheck/vercheck/stablefix"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFalseAccept = 1 // vercheck accepted a program the kernel rejects
	exitUsage       = 2
	exitNoKernel    = 3 // bpf() is not permitted here
)

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vercheck-diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 1000, "number of programs")
	seed := fs.Uint64("seed", 1, "first seed")
	mistakes := fs.Float64("mistakes", 0.05, "probability of an unsafe construct")
	out := fs.String("out", "internal/gen/testdata/diff", "directory for vercheck-accepts/kernel-rejects programs")
	timeout := fs.Duration("timeout", 10*time.Second, "vercheck time limit per program")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if err := kernel.Available(); err != nil {
		fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
		return exitNoKernel
	}
	// vercheck follows the stable fixes of the kernel it is compared with.
	missing, err := stablefix.Probe()
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
		return exitNoKernel
	}
	var tally oracle.Tally
	for s := *seed; s < *seed+uint64(*n); s++ {
		p, err := gen.Generate(s, gen.Config{Mistakes: *mistakes})
		if err != nil {
			fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
			return exitUsage
		}
		o := oracle.Judge(p.Object, p.Prog, oracle.Options{Timeout: *timeout, Logs: true, MissingFixes: missing})
		tally.Add(o)
		if o.Class != oracle.FalseAccept {
			continue
		}
		fmt.Fprintf(stdout, "seed %d: vercheck accepts, kernel rejects: %s\n", s, o.Kernel.Err)
		if err := oracle.Save(filepath.Join(*out, fmt.Sprintf("seed-%d", s)), p.Insns, o, ""); err != nil {
			fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
		}
	}
	fmt.Fprintf(stdout, "\n%d generated programs\n", *n)
	tally.Print(stdout)
	if tally.Count(oracle.FalseAccept) > 0 {
		return exitFalseAccept
	}
	return exitOK
}
