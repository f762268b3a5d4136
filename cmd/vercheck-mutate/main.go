// Command vercheck-mutate is a mutation-based differential fuzzer: it
// takes programs that both vercheck and the running kernel accept (the
// seeds), derives mutants from them with package internal/mutate (one to
// three small changes each, or a memory access moved to the exact edge of
// its object), and gives every mutant to both verifiers.
//
//	go run ./cmd/vercheck-mutate -n 5000 -seed 7 -j 2 testdata/progs ../shared/corpus
//
// Seeds come from the objects and directories named on the command line
// (each program keeps its maps and program type) and from -gen programs
// of package internal/gen. Each outcome is classified (package
// internal/oracle): a false accept (vercheck accepts, the kernel rejects
// with a verifier message) is minimised by deleting instructions while it
// stays a false accept with the same kernel message, printed, saved
// under -out and appended to the -findings file; the other disagreements
// (false rejects, different messages, different insn_processed, vercheck
// errors and hangs) are counted by reason and a few of each reason saved.
//
// A run is determined by -seed and the seeds: mutant i is drawn from
// its own random stream, so -j changes nothing but speed, and a mutant's
// index and -seed reproduce it.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
