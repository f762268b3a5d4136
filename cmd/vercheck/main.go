// Command vercheck verifies the programs of BPF ELF objects the way the
// Linux verifier does and reports the kernel's figures.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
