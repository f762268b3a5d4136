package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReport: of two rejection sites, the one inside a block the profile
// counts is reached, the other is listed with its message.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	src := `package v

type env struct{}

func (e *env) reject(format string, args ...any) error { return nil }

func (e *env) check(x int) error {
	if x > 0 {
		return e.reject("x is %d", x)
	}
	return e.reject("never here")
}
`
	if err := os.WriteFile(filepath.Join(dir, "v.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Lines 8-10 counted, 11 not.
	file := filepath.ToSlash(filepath.Join(dir, "v.go"))
	profile := "mode: set\n" + file + ":8.11,10.3 1 4\n" + file + ":11.2,11.31 1 0\n"
	prof := filepath.Join(dir, "cov.out")
	if err := os.WriteFile(prof, []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if got := run([]string{prof, dir}, &stdout, &stderr); got != 0 {
		t.Fatalf("exit %d: %s", got, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := []string{
		"rejection sites reached: 1 of 2 (1 never)",
		dir + "/v.go: 1 of 2 never reached",
		`    11: "never here"`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("report mismatch (-want +got):\n%s", diff)
	}
	if got := run([]string{prof}, &stdout, &stderr); got != 2 {
		t.Errorf("one argument: exit %d, want 2", got)
	}
}

// TestSites: every kind of rejection site is found, and nothing else.
func TestSites(t *testing.T) {
	dir := t.TempDir()
	src := `package v

type env struct{}
type Access struct{}
type RejectError struct{ Msg string }

func (e *env) rejectOutOfRange(x int) error { return nil }
func (e *env) rejected(x int) error         { return nil }

func (e *env) check(x int) error {
	if x > 0 {
		return e.rejectOutOfRange(x)
	}
	e.rejected(x)
	return &RejectError{Msg: "m"}
}

func xdpCtx(off int) (Access, bool) {
	if off > 4 {
		return Access{}, false
	}
	return Access{}, off == 0
}
`
	if err := os.WriteFile(filepath.Join(dir, "v.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := rejectSites(dir)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "v.go")
	want := []site{{file, 12, ""}, {file, 15, ""}, {file, 20, "invalid bpf_context access (xdpCtx)"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(site{})); diff != "" {
		t.Errorf("sites mismatch (-want +got):\n%s", diff)
	}
}
