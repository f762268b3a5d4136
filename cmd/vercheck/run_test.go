package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

func TestRunFormats(t *testing.T) {
	objs := []string{"../../testdata/progs/straight_line.o", "../../testdata/progs/map_lookup_unchecked.o"}
	tests := []struct {
		name   string
		args   []string
		status int
		check  func(t *testing.T, out string)
	}{
		{"csv", append([]string{"--format", "csv"}, objs...), exitRejected, func(t *testing.T, out string) {
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(csvHeader, recs[0]); diff != "" {
				t.Errorf("header mismatch (-want +got):\n%s", diff)
			}
			got := [][]string{}
			for _, r := range recs[1:] {
				got = append(got, []string{r[1], r[3], r[4]})
			}
			want := [][]string{{"straight_line", "SocketFilter", "accepted"}, {"map_lookup_unchecked", "SocketFilter", "rejected"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows mismatch (-want +got):\n%s", diff)
			}
			if !strings.Contains(recs[2][10], "R0 invalid mem access 'map_value_or_null'") {
				t.Errorf("error column %q lacks the kernel's message", recs[2][10])
			}
		}},
		{"json", append([]string{"--format", "json"}, objs[0]), exitAccepted, func(t *testing.T, out string) {
			var rows []row
			if err := json.Unmarshal([]byte(out), &rows); err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].Verdict != "accepted" || rows[0].Insns == 0 {
				t.Errorf("unexpected rows %+v", rows)
			}
		}},
		{"table", objs, exitRejected, func(t *testing.T, out string) {
			for _, want := range []string{"INSNS", "straight_line", "accepted", "map_lookup_unchecked.o: ", "insn 7"} {
				if !strings.Contains(out, want) {
					t.Errorf("table lacks %q:\n%s", want, out)
				}
			}
		}},
		{"verbose log", []string{"-v", objs[1]}, exitRejected, func(t *testing.T, out string) {
			if !strings.Contains(out, "(85) call bpf_map_lookup_elem#1") {
				t.Errorf("-v log lacks the call insn:\n%s", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.status {
				t.Errorf("exit status %d, want %d (stderr %s)", got, tt.status, stderr.String())
			}
			tt.check(t, stdout.String())
		})
	}
}

func TestRunBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"no args", nil, exitUsage},
		{"bad format", []string{"--format", "xml", "x.o"}, exitUsage},
		{"missing file", []string{"/nonexistent/x.o"}, exitUsage},
		{"not elf", []string{"run.go"}, exitUsage},
		{"bad policy", []string{"--prune-policy", "miss>x", "x.o"}, exitUsage},
		{"bad type", []string{"--type", "nope", "x.o"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.want {
				t.Errorf("exit status %d, want %d", got, tt.want)
			}
		})
	}
}

func decodeRows(t *testing.T, b []byte) []row {
	t.Helper()
	var rows []row
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestRunStableOrderAndSummary(t *testing.T) {
	files, err := loader.FindObjects([]string{"../../testdata/progs"})
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, j := range []string{"1", "4"} {
		var stdout, stderr bytes.Buffer
		run(append([]string{"--format", "csv", "-j", j}, files...), &stdout, &stderr)
		// Drop the duration column, the only one that varies.
		recs, err := csv.NewReader(&stdout).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, r := range recs {
			r[9] = ""
			b.WriteString(strings.Join(r, ",") + "\n")
		}
		outs = append(outs, b.String())
		if !strings.Contains(stderr.String(), " programs: ") || !strings.Contains(stderr.String(), "insn_processed ") {
			t.Errorf("-j %s: no summary on stderr:\n%s", j, stderr.String())
		}
	}
	if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
		t.Errorf("-j 1 and -j 4 disagree (-j1 +j4):\n%s", diff)
	}
}

func TestSummarize(t *testing.T) {
	rows := []row{
		{Program: "a", Verdict: verdictAccepted, Insns: 10, Duration: 1000},
		{Program: "b", Verdict: verdictRejected, Insns: 5, Duration: 2000},
		{Program: "c", Verdict: verdictUnsupported},
		{Program: "d", Verdict: verdictError},
		{File: "x.o", Verdict: verdictError},
	}
	want := summary{Programs: 4, Accepted: 1, Rejected: 1, Unsupported: 1, Errors: 1, LoadFailures: 1,
		Insns: 15, CPU: 3 * time.Millisecond, Wall: time.Second}
	if diff := cmp.Diff(want, summarize(rows, time.Second)); diff != "" {
		t.Errorf("summarize mismatch (-want +got):\n%s", diff)
	}
}

func TestProgressOnlyOnTerminals(t *testing.T) {
	var buf bytes.Buffer
	if isTerminal(&buf) {
		t.Error("a buffer is a terminal")
	}
	p := newProgress(nil, 3)
	p.done("x")
	p.finish()
	p = newProgress(&buf, 3)
	p.start = p.start.Add(-time.Hour) // a long run
	p.done("x")
	p.finish()
	if !strings.Contains(buf.String(), "[1/3]") {
		t.Errorf("progress line %q lacks the count", buf.String())
	}
}
