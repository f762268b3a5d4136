package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vercheck/vercheck/internal/kernel"
)

func kRow(prog, ours string, insns int, theirs string, kinsns int) row {
	return row{File: "o.o", Program: prog, Verdict: ours, Insns: insns,
		Kernel: &kernelRow{Verdict: theirs, Insns: kinsns, Error: "msg"}}
}

func TestSummarizeKernel(t *testing.T) {
	rows := []row{
		kRow("exact", verdictAccepted, 100, verdictAccepted, 100),
		kRow("double", verdictAccepted, 200, verdictAccepted, 100),
		kRow("half", verdictRejected, 50, verdictRejected, 100),
		kRow("unsafe", verdictAccepted, 10, verdictRejected, 10),
		kRow("strict", verdictRejected, 10, verdictAccepted, 10),
		kRow("nosetup", verdictAccepted, 10, verdictNotLoaded, 0),
		kRow("unsupported", verdictUnsupported, 0, verdictAccepted, 10),
		{File: "bad.o", Verdict: verdictError},
	}
	// Three rejections with the kernel's message: one with its errno, one
	// with another, one whose errno is the loading process's.
	sameMsg := func(prog, errno, kerrno, msg string) row {
		r := kRow(prog, verdictRejected, 1, verdictRejected, 1)
		r.decisive, r.Errno, r.Kernel.Errno, r.Kernel.Error = msg, errno, kerrno, msg
		return r
	}
	rows = append(rows,
		sameMsg("errno", "EINVAL", "EINVAL", "div by zero"),
		sameMsg("other errno", "EACCES", "EINVAL", "div by zero"),
		sameMsg("descriptor", "EINVAL", "EBADF", "fd 9 is not pointing to valid bpf_map"))
	rows[0].Kernel.LogsCompared = true
	rows[1].Kernel.LogsCompared, rows[1].Kernel.LogDivergence = true, "after 3: (07) r1 += 8 state: ..."
	got := summarizeKernel(rows, "6.18")
	want := kernelSummary{
		Release: "6.18", Compared: 8, Agree: 6, NotCompared: 2, NotLoaded: rows[5:6],
		FalseAccepts: rows[3:4], FalseRejects: rows[4:5],
		BothRejected: 4, SameMessage: 3, SameErrno: 2,
		Ratios: []float64{0.5, 1, 1, 1, 1, 2}, Exact: 4,
		Worst:        []row{rows[1], rows[2]},
		LogsCompared: 2, LogsDiverge: rows[1:2],
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("summarizeKernel mismatch (-want +got):\n%s", diff)
	}
}

func TestKernelTableFlagsFalseAcceptsFirst(t *testing.T) {
	rows := []row{
		kRow("fine", verdictAccepted, 1, verdictAccepted, 1),
		kRow("unsafe", verdictAccepted, 1, verdictRejected, 1),
	}
	var buf bytes.Buffer
	writeKernelTable(&buf, rows, false)
	lines := strings.Split(buf.String(), "\n")
	if !strings.HasPrefix(lines[0], "!!! FALSE ACCEPT: o.o: unsafe:") {
		t.Errorf("first line %q does not flag the false accept", lines[0])
	}
}

func TestRunKernelUnavailable(t *testing.T) {
	saved := kernelAvailable
	kernelAvailable = func() error { return errors.New("EPERM") }
	defer func() { kernelAvailable = saved }()

	var stdout, stderr bytes.Buffer
	args := []string{"--kernel", "../../testdata/progs/straight_line.o", "../../testdata/progs/exit_no_r0.o"}
	if got := run(args, &stdout, &stderr); got != exitRejected {
		t.Errorf("exit %d, want %d", got, exitRejected)
	}
	if n := strings.Count(stderr.String(), "EPERM"); n != 1 {
		t.Errorf("stderr says %d times that bpf() is not permitted, want once:\n%s", n, stderr.String())
	}
	if !strings.Contains(stdout.String(), "2 programs: 1 accepted, 1 rejected") {
		t.Errorf("run did not go on with vercheck's figures:\n%s", stdout.String())
	}
}

func TestRunKernelLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--kernel", "--format", "json", "../../testdata/progs/straight_line.o", "../../testdata/progs/map_lookup_unchecked.o"}
	if got := run(args, &stdout, &stderr); got != exitRejected {
		t.Errorf("exit %d, want %d: %s", got, exitRejected, stderr.String())
	}
	rows := decodeRows(t, stdout.Bytes())
	type sides struct{ Program, Ours, Theirs string }
	var got []sides
	for _, r := range rows {
		if r.Kernel == nil {
			t.Fatalf("%s: no kernel figures", r.Program)
		}
		got = append(got, sides{r.Program, r.Verdict, r.Kernel.Verdict})
		if r.Insns != r.Kernel.Insns {
			t.Errorf("%s: insn_processed %d, kernel %d", r.Program, r.Insns, r.Kernel.Insns)
		}
	}
	want := []sides{{"straight_line", "accepted", "accepted"}, {"map_lookup_unchecked", "rejected", "rejected"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr.String(), "verdict agreement: 2/2") {
		t.Errorf("summary on stderr lacks the agreement:\n%s", stderr.String())
	}
}

// TestRunKernelLogDir: with --kernel, --log-dir keeps the kernel's own log
// of the same level beside vercheck's, both ending in the same rejection.
func TestRunKernelLogDir(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	run([]string{"--kernel", "-v", "--log-dir", dir, "../../testdata/progs/map_lookup_unchecked.o"}, &stdout, &stderr)
	const msg = "R0 invalid mem access 'map_value_or_null'"
	for _, name := range []string{"map_lookup_unchecked.log", "map_lookup_unchecked.kernel.log"} {
		b, err := os.ReadFile(filepath.Join(dir, "testdata_progs_map_lookup_unchecked.o", name))
		if err != nil {
			t.Fatalf("%v; stderr:\n%s", err, stderr.String())
		}
		if !strings.Contains(string(b), msg) {
			t.Errorf("%s lacks %q:\n%s", name, msg, b)
		}
	}
}
