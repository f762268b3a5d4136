// Command vercheck-golden loads every BPF object in testdata/progs into the
// running kernel and records the verifier's verdicts and statistics in
// testdata/progs/kernel-golden.json. It needs bpf() (root or CAP_BPF).
//
// Usage, from the module root:
//
//	go run ./cmd/vercheck-golden [-dir testdata/progs] [-o file] [-v]
//
// With -o -, the records go to standard output. With -v, each program's
// verdict and, for rejections, its log are printed to standard error.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
