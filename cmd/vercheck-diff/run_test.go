package main

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/gen"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/verifier"
)

// savedDir holds every program vercheck accepted and the kernel rejected.
const savedDir = "../../internal/gen/testdata/diff"

// TestSavedDisagreements re-verifies every saved vercheck-accepts,
// kernel-rejects program found by the differential run: each was a bug,
// and vercheck must reject it now.
func TestSavedDisagreements(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(savedDir, "*", "prog.hex"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range dirs {
		name := filepath.Base(filepath.Dir(f))
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := hex.DecodeString(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			code, err := insn.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			p, err := gen.NewProgram(0, code)
			if err != nil {
				t.Fatal(err)
			}
			res := verifier.Verify(p.Object, p.Prog, verifier.Options{})
			if res.Accepted {
				t.Errorf("vercheck accepts a program the kernel rejects")
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if diff := cmp.Diff(exitUsage, run([]string{"-bogus"}, &out, &errb)); diff != "" {
		t.Errorf("exit status mismatch (-want +got):\n%s", diff)
	}
}

// TestRunSmall runs a few programs against the live kernel.
func TestRunSmall(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel not available: %v", err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"-n", "20", "-out", t.TempDir()}, &out, &errb)
	if code != exitOK && code != exitFalseAccept {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "20 generated programs") {
		t.Errorf("no table in output:\n%s", out.String())
	}
}
