package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/progtest"
)

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"unknown flag", []string{"-nope"}, exitUsage},
		{"stray argument", []string{"extra"}, exitUsage},
		{"help", []string{"-h"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.want {
				t.Errorf("run(%q) = %d, want %d; stderr:\n%s", tt.args, got, tt.want, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("run(%q) wrote to stdout: %q", tt.args, stdout.String())
			}
		})
	}
}

func TestRunNoObjects(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if got := run([]string{"-dir", t.TempDir(), "-o", "-"}, &stdout, &stderr); got != exitError {
		t.Errorf("run on an empty directory = %d, want %d", got, exitError)
	}
	if stderr.Len() == 0 {
		t.Error("no error message on stderr")
	}
}

// liveObjects are the objects TestRunLive regenerates: programs the kernel
// accepts and rejects, programs whose source carries no expectation (jump
// tables libbpf refuses, .kconfig reads vercheck calls unsupported) and
// arena programs some builds refuse to load (EPERM).
var liveObjects = []string{"s40_jump_tables", "s37_kconfig_layout", "ar_alu"}

// TestRunLive regenerates the golden records of a few objects, copied with
// their C sources and their checked-in records to a directory of their own,
// and compares them with the checked-in records: the same as those of the
// running build, no record of a program without an expectation, an earlier
// verdict kept for a program this build cannot load, and the same bytes
// written to a file as to standard output. TestGoldenLive (internal/progtest)
// regenerates every object.
func TestRunLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	src := filepath.Join("..", "..", "testdata", "progs")
	dir := t.TempDir()
	checkedIn, err := progtest.ReadGolden(filepath.Join(src, progtest.GoldenName))
	if err != nil {
		t.Fatal(err)
	}
	var want []progtest.Golden
	for _, name := range liveObjects {
		for _, ext := range []string{".c", ".o"} {
			b, err := os.ReadFile(filepath.Join(src, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, g := range checkedIn {
			if g.File == name+".o" {
				want = append(want, g)
			}
		}
	}
	var golden bytes.Buffer
	if err := progtest.WriteGolden(&golden, want); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, progtest.GoldenName), golden.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	if got := run([]string{"-dir", dir, "-o", "-"}, &stdout, &stderr); got != exitOK {
		t.Fatalf("run = %d; stderr:\n%s", got, stderr.String())
	}
	var got []progtest.Golden
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	release, err := kernel.Release()
	if err != nil {
		t.Fatal(err)
	}
	d := progtest.DiffGolden(want, got, release)
	for _, s := range d.Stale {
		t.Errorf("regenerated record differs from the checked-in one of the same build: %s", s)
	}
	if len(got) != len(want) {
		t.Errorf("regenerated %d records, want the %d checked in (no program without an expectation, none left out):\n%s",
			len(got), len(want), stderr.String())
	}
	for _, program := range []string{"s40_jump_table", "s37_kconfig_word_at_bool"} {
		if !strings.Contains(stderr.String(), program+": no expectation in the C source") {
			t.Errorf("stderr does not name %s as a program without an expectation:\n%s", program, stderr.String())
		}
	}
	if d.OtherBuild > 0 {
		t.Logf("%d records from other kernel builds than %s; %d differ here", d.OtherBuild, release, len(d.Drift))
	}

	// Writing to a file gives the same bytes as standard output.
	out := filepath.Join(t.TempDir(), "g.json")
	if code := run([]string{"-dir", dir, "-o", out}, &bytes.Buffer{}, &stderr); code != exitOK {
		t.Fatalf("run -o file = %d; stderr:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "[") || !bytes.Equal(b, stdout.Bytes()) {
		t.Error("file output differs from stdout output")
	}
}
