package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/progtest"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// run is the whole command; main only passes it the process's arguments and
// streams.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vercheck-golden", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", filepath.Join("testdata", "progs"), "directory of BPF objects")
	out := fs.String("o", "", "output file (default <dir>/"+progtest.GoldenName+"; - for stdout)")
	verbose := fs.Bool("v", false, "print each verdict, and the log of each rejection, to stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "vercheck-golden: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	if *out == "" {
		*out = filepath.Join(*dir, progtest.GoldenName)
	}

	gs, err := collect(*dir, stderr, *verbose)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-golden: %v\n", err)
		return exitError
	}
	gs, err = onlyExpected(gs, *dir, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-golden: %v\n", err)
		return exitError
	}
	gs, err = keepEarlierVerdicts(gs, filepath.Join(*dir, progtest.GoldenName), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-golden: %v\n", err)
		return exitError
	}
	var buf bytes.Buffer
	if err := progtest.WriteGolden(&buf, gs); err != nil {
		fmt.Fprintf(stderr, "vercheck-golden: %v\n", err)
		return exitError
	}
	if *out == "-" {
		_, err = stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-golden: %v\n", err)
		return exitError
	}
	return exitOK
}

// onlyExpected keeps the records of programs whose C source in dir carries
// an expectation tag. A program without one has no kernel verdict to keep
// (libbpf refuses its object, or vercheck reports it unsupported, as the
// source's comment says), and a record of it would fail the expectation
// tests; the dropped programs are named on stderr. A directory without C
// sources (objects alone) keeps every record.
func onlyExpected(gs []progtest.Golden, dir string, stderr io.Writer) ([]progtest.Golden, error) {
	exps, err := progtest.Load(dir)
	if err != nil {
		return nil, err
	}
	if len(exps) == 0 {
		return gs, nil
	}
	type key struct{ file, program string }
	tagged := make(map[key]bool, len(exps))
	for _, e := range exps {
		tagged[key{e.Object(), e.Program}] = true
	}
	kept := gs[:0]
	for _, g := range gs {
		if !tagged[key{g.File, g.Program}] {
			fmt.Fprintf(stderr, "vercheck-golden: %s: %s: no expectation in the C source; not recorded (%s)\n", g.File, g.Program, g.Verdict)
			continue
		}
		kept = append(kept, g)
	}
	return kept, nil
}

// keepEarlierVerdicts keeps, from the golden file at path, the records of
// programs the running kernel could not load (see progtest.KeepVerdicts),
// and says which on stderr. A missing file keeps nothing.
func keepEarlierVerdicts(gs []progtest.Golden, path string, stderr io.Writer) ([]progtest.Golden, error) {
	old, err := progtest.ReadGolden(path)
	if errors.Is(err, fs.ErrNotExist) {
		return gs, nil
	}
	if err != nil {
		return nil, err
	}
	gs, kept := progtest.KeepVerdicts(gs, old)
	for _, g := range kept {
		fmt.Fprintf(stderr, "vercheck-golden: %s: %s: the running kernel gave no verdict; kept the record from %s\n", g.File, g.Program, g.Release)
	}
	return gs, nil
}

// collect loads every object in dir and returns the kernel's verdicts.
func collect(dir string, stderr io.Writer, verbose bool) ([]progtest.Golden, error) {
	if err := kernel.Available(); err != nil {
		return nil, err
	}
	objs, err := filepath.Glob(filepath.Join(dir, "*.o"))
	if err != nil {
		return nil, fmt.Errorf("list objects: %w", err)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("no objects in %s (run make -C %s)", dir, dir)
	}
	missing, err := stablefix.Probe()
	if err != nil {
		return nil, fmt.Errorf("probe the running kernel's stable fixes: %w", err)
	}
	var gs []progtest.Golden
	for _, obj := range objs {
		spec, _, err := loader.LoadCollectionSpec(obj)
		if errors.Is(err, loader.ErrKconfigRefused) || errors.Is(err, loader.ErrExternIncompatible) {
			// The loader refuses the object, as libbpf does: the
			// kernel never sees its programs.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", obj, err)
		}
		// As libbpf loads an object (maps with the object's BTF), the
		// loader vercheck models for objects.
		results, err := kernel.Options{}.LoadCollectionSpec(spec)
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", obj, err)
		}
		for _, r := range results {
			g := progtest.FromResult(filepath.Base(obj), r)
			g.MissingFixes = missing.String()
			if verbose {
				fmt.Fprintf(stderr, "%s %s: %s insns=%d states=%d peak=%d %s\n",
					g.File, g.Program, g.Verdict, g.InsnProcessed, g.TotalStates, g.PeakStates, g.Error)
				if !r.Accepted {
					fmt.Fprintf(stderr, "%s\n", r.Log)
				}
			}
			gs = append(gs, g)
		}
	}
	return gs, nil
}
