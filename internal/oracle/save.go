package oracle

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vercheck/vercheck/insn"
)

// maxSavedLogLines keeps saved logs small: the failing path's end is what
// explains a rejection.
const maxSavedLogLines = 200

// Save writes a program and both verdicts into directory dir: prog.txt
// (the listing), prog.hex (the raw bytecode, which the regression tests
// re-verify), vercheck.log and kernel.log (their last lines), and
// info.txt when info is not empty.
func Save(dir string, code []insn.Insn, o Outcome, info string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save %s: %w", dir, err)
	}
	files := map[string]string{
		"prog.txt":     Listing(code),
		"prog.hex":     hex.EncodeToString(insn.Encode(code)) + "\n",
		"vercheck.log": tail(o.Vercheck.Log),
		"kernel.log":   tail(o.Kernel.Log),
	}
	if info != "" {
		files["info.txt"] = info
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return fmt.Errorf("save %s: %w", dir, err)
		}
	}
	return nil
}

// Listing renders code one instruction a line, "idx: text", as the
// kernel's log shows instructions; ld_imm64 second halves are left out.
func Listing(code []insn.Insn) string {
	var b strings.Builder
	for i, in := range code {
		if !in.Filler {
			fmt.Fprintf(&b, "%d: %s\n", i, in)
		}
	}
	return b.String()
}

// tail returns the last maxSavedLogLines lines of log.
func tail(log string) string {
	lines := strings.Split(log, "\n")
	if len(lines) > maxSavedLogLines {
		lines = lines[len(lines)-maxSavedLogLines:]
	}
	return strings.Join(lines, "\n")
}
