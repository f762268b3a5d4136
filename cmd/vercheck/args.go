package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// parseInterleaved parses flags wherever they appear among the arguments
// ("vercheck prog.o -v"), as veristat and most tools take them, and
// returns the other arguments in order. "--" ends the flags: everything
// after it is an argument.
func parseInterleaved(fset *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fset.Parse(args); err != nil {
			return nil, err
		}
		rest := fset.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// writeVersion prints vercheck's version: the module version (or the
// source revision of a development build) and what it models.
func writeVersion(w io.Writer) {
	version, revision := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = " " + s.Value
			}
		}
	}
	fmt.Fprintf(w, "vercheck %s%s: the Linux 6.18 BPF verifier in userspace\n", version, revision)
}
