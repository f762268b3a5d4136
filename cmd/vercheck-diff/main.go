// Command vercheck-diff feeds generated programs (package internal/gen) to
// both vercheck and the running kernel's verifier and prints how often they
// agree.
//
//	go run ./cmd/vercheck-diff -n 20000
//
// Every program vercheck accepts and the kernel rejects is a potential
// soundness bug; it is saved under -out (one directory per seed, with the
// program, its raw bytecode and both logs). Disagreements the other way
// (vercheck too strict) are summarised by vercheck's message.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
