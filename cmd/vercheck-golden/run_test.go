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

// TestRunLive regenerates the golden records into a buffer and compares them
// with the checked-in file when the kernel release matches.
func TestRunLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	dir := filepath.Join("..", "..", "testdata", "progs")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"-dir", dir, "-o", "-"}, &stdout, &stderr); got != exitOK {
		t.Fatalf("run = %d; stderr:\n%s", got, stderr.String())
	}
	var got []progtest.Golden
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want, err := progtest.ReadGolden(filepath.Join(dir, progtest.GoldenName))
	if err != nil {
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
