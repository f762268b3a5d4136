package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
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

// TestRunLoadInputs checks that --license and --prog-flags reach the
// verifier: the license only for an object without one, the flags on top
// of those the section implies.
func TestRunLoadInputs(t *testing.T) {
	const progs = "../../testdata/progs/"
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"no license", []string{progs + "li_nolicense.o"}, exitRejected},
		{"license given", []string{"--license", "GPL", progs + "li_nolicense.o"}, exitAccepted},
		{"own license wins", []string{"--license", "GPL", progs + "ctxp_gpl.o"}, exitRejected},
		{"no flags", []string{progs + "straight_line.o"}, exitAccepted},
		{"sleepable socket filter", []string{"--prog-flags", "sleepable", progs + "straight_line.o"}, exitRejected},
		{"numeric flags", []string{"--prog-flags", "0x10", progs + "straight_line.o"}, exitRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.want {
				t.Errorf("exit status %d, want %d\n%s", got, tt.want, stdout.String())
			}
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
		{"no workers", []string{"-j", "0", "../../testdata/progs/straight_line.o"}, exitUsage},
		{"negative workers", []string{"-j", "-3", "../../testdata/progs/straight_line.o"}, exitUsage},
		{"unknown fix", []string{"--fixes", "nope", "../../testdata/progs/straight_line.o"}, exitUsage},
		{"unknown map BTF loader", []string{"--map-btf", "nope", "../../testdata/progs/straight_line.o"}, exitUsage},
		{"bad btf", []string{"--btf", "/nonexistent", "../../testdata/progs/straight_line.o"}, exitUsage},
		{"bad prog flags", []string{"--prog-flags", "strict_alignment,nope", "x.o"}, exitUsage},
		{"inner map without outer", []string{"--inner-map", "array:4:4:1", "x.o"}, exitUsage},
		{"inner map of an unknown type", []string{"--inner-map", "outer=nope:4:4:1", "x.o"}, exitUsage},
		{"inner map of a bad size", []string{"--inner-map", "outer=array:4:x:1", "x.o"}, exitUsage},
		{"inner map of a map that is none", []string{"--inner-map", "nope=array:4:4:1", "../../testdata/progs/straight_line.o"}, exitUsage},
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

// TestRunExitStatusInputs: an unreadable object named on the command line
// is bad input; one found in a directory sweep is an error row; a
// directory with no objects is bad input.
func TestRunExitStatusInputs(t *testing.T) {
	dir := t.TempDir()
	good := "../../testdata/progs/straight_line.o"
	obj, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mustWrite("ok.o", obj)
	broken := mustWrite("broken.o", obj[:100])
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"sweep with a broken object", []string{dir}, exitRejected},
		{"broken object named", []string{good, broken}, exitUsage},
		{"empty directory", []string{empty}, exitUsage},
		{"good object", []string{good}, exitAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.want {
				t.Errorf("run(%q) = %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, got, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		args      []string
		wantPaths []string
		wantV     bool
		wantFmt   string
	}{
		{[]string{"a.o", "-v"}, []string{"a.o"}, true, "table"},
		{[]string{"-v", "a.o", "--format", "csv", "b.o"}, []string{"a.o", "b.o"}, true, "csv"},
		{[]string{"a.o", "--", "-v"}, []string{"a.o", "-v"}, false, "table"},
		{[]string{"a.o", "b.o"}, []string{"a.o", "b.o"}, false, "table"},
	}
	for _, tt := range tests {
		fset := flag.NewFlagSet("t", flag.ContinueOnError)
		v := fset.Bool("v", false, "")
		format := fset.String("format", "table", "")
		paths, err := parseInterleaved(fset, tt.args)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		type got struct {
			Paths  []string
			V      bool
			Format string
		}
		if diff := cmp.Diff(got{tt.wantPaths, tt.wantV, tt.wantFmt}, got{paths, *v, *format}); diff != "" {
			t.Errorf("%q mismatch (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestRunHelpAndVersion: -h and --version answer on stdout with status 0;
// flags after the paths are taken.
func TestRunHelpAndVersion(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, "Exit status: 0 every program accepted"},
		{[]string{"--help"}, "Examples:"},
		{[]string{"--version"}, "vercheck "},
		{[]string{"../../testdata/progs/map_lookup_unchecked.o", "-v"}, "hint: the value a map lookup returns may be NULL"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("run(%q): stdout lacks %q:\n%s\nstderr:\n%s", tt.args, tt.want, stdout.String(), stderr.String())
		}
		if code == exitUsage {
			t.Errorf("run(%q) = %d", tt.args, code)
		}
	}
}

// TestRunTimeoutVerdict: a program over the time limit is neither
// accepted nor rejected.
func TestRunTimeoutVerdict(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"--timeout", "1ns", "--format", "json", "../../testdata/progs/bounded_loop.o"}
	if got := run(args, &stdout, &stderr); got != exitRejected {
		t.Errorf("exit %d, want %d", got, exitRejected)
	}
	for _, r := range decodeRows(t, stdout.Bytes()) {
		if r.Verdict != verdictTimeout {
			t.Errorf("%s: verdict %q, want %q", r.Program, r.Verdict, verdictTimeout)
		}
	}
	if !strings.Contains(stderr.String(), "over the time limit") {
		t.Errorf("summary does not count the timeouts:\n%s", stderr.String())
	}
}

// TestRunShowsLoaderWarnings: what the loader repaired in an old object is
// said once on stderr and travels with the object's first JSON row.
func TestRunShowsLoaderWarnings(t *testing.T) {
	obj := "../../../shared/corpus/ebpf-samples/linux/sockex1_kern.o"
	if _, err := os.Stat(obj); err != nil {
		t.Skipf("shared corpus not present: %v", err)
	}
	var stdout, stderr bytes.Buffer
	run([]string{"--format", "json", obj}, &stdout, &stderr)
	if n := strings.Count(stderr.String(), "warning: ELF: filled 2 zero st_size symbols"); n != 1 {
		t.Errorf("stderr has the warning %d times, want once:\n%s", n, stderr.String())
	}
	rows := decodeRows(t, stdout.Bytes())
	if len(rows) == 0 || len(rows[0].Warnings) != 1 {
		t.Errorf("first row's warnings = %v, want one", rows)
	}
	stdout.Reset()
	stderr.Reset()
	run([]string{"-q", obj}, &stdout, &stderr)
	if strings.Contains(stderr.String(), "warning:") {
		t.Errorf("-q still prints loader warnings:\n%s", stderr.String())
	}
}

// TestRunShards: --shard 1/2 and 2/2 split the objects of a run between
// them, each object in exactly one shard.
func TestRunShards(t *testing.T) {
	programs := func(args ...string) map[string]int {
		var stdout, stderr bytes.Buffer
		run(append(args, "--format", "json", "../../testdata/progs"), &stdout, &stderr)
		seen := map[string]int{}
		for _, r := range decodeRows(t, stdout.Bytes()) {
			seen[r.File+" "+r.Program]++
		}
		return seen
	}
	all := programs()
	one, two := programs("--shard", "1/2"), programs("--shard", "2/2")
	if len(one) == 0 || len(two) == 0 {
		t.Fatalf("a shard is empty: %d and %d programs", len(one), len(two))
	}
	for p := range all {
		if one[p]+two[p] != 1 {
			t.Errorf("%s: in shard 1 %d times, in shard 2 %d times", p, one[p], two[p])
		}
	}
	if len(one)+len(two) != len(all) {
		t.Errorf("shards hold %d+%d programs, the run %d", len(one), len(two), len(all))
	}
	for _, bad := range []string{"0/2", "3/2", "x", "1/0"} {
		if got := run([]string{"--shard", bad, "../../testdata/progs"}, &bytes.Buffer{}, &bytes.Buffer{}); got != exitUsage {
			t.Errorf("--shard %s: exit %d, want %d", bad, got, exitUsage)
		}
	}
}

// TestRunVeristatSelection: -e, -f, -s and -n work in the main mode as in
// veristat; the summary still counts the whole run.
func TestRunVeristatSelection(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"top 3 by insns", []string{"-f", "pruning.o/*", "-f", "may_goto.o/*", "-e", "prog_name,total_insns", "-s", "total_insns", "-n", "3", "--format", "csv"},
			"prog_name,total_insns\nmay_goto_masked_index,182\npruning,165\nmay_goto_oob,155\n"},
		{"filter and ascending name", []string{"-f", "total_insns>150", "-f", "pruning.o/*", "-f", "may_goto.o/*", "-s", "^prog_name", "-e", "prog_name", "--format", "csv"},
			"prog_name\nmay_goto_masked_index\nmay_goto_oob\npruning\n"},
		{"object glob", []string{"-f", "xdp_parse*/*", "-e", "file_name,prog_name,verdict", "--format", "csv"},
			"file_name,prog_name,verdict\n../../testdata/progs/xdp_parse.o,xdp_parse,accepted\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			run(append(tt.args, "../../testdata/progs"), &stdout, &stderr)
			if diff := cmp.Diff(tt.want, stdout.String()); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
			}
		})
	}
	for _, bad := range [][]string{{"-n", "-1"}, {"-e", "nope"}, {"-f", "total_insns_b>1"}, {"-s", "total_insns_diff"}} {
		if got := run(append(bad, "../../testdata/progs"), &bytes.Buffer{}, &bytes.Buffer{}); got != exitUsage {
			t.Errorf("%q: exit %d, want %d", bad, got, exitUsage)
		}
	}
}

// TestRunLogDir: --log-dir writes one log per program whatever the format.
func TestRunLogDir(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	run([]string{"--log-dir", dir, "--format", "json", "../../testdata/progs/map_lookup_unchecked.o"}, &stdout, &stderr)
	b, err := os.ReadFile(filepath.Join(dir, "testdata_progs_map_lookup_unchecked.o", "map_lookup_unchecked.log"))
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(string(b), "R0 invalid mem access 'map_value_or_null'") {
		t.Errorf("log lacks the rejection:\n%s", b)
	}
	if diff := cmp.Diff("a_b.o", flatName("../a/b.o")); diff != "" {
		t.Errorf("flatName mismatch (-want +got):\n%s", diff)
	}
}

func TestRunProfile(t *testing.T) {
	const loop = "../../testdata/progs/bounded_loop.o"
	out := filepath.Join(t.TempDir(), "profile.json")
	tests := []struct {
		name           string
		args           []string
		status         int
		stdout, stderr []string
	}{
		{"table", []string{"--profile", loop}, exitAccepted,
			[]string{"bounded_loop.o: bounded_loop: accepted", "hottest source lines", "hottest instructions", "subprograms", "loops",
				"bounded_loop.c:14 (`sum = sum * 31 + i;`): 13 misses, 100% because R2's range differs (2 vs 3, precise)"}, nil},
		{"csv keeps stdout machine-readable", []string{"--profile", "--format", "csv", loop}, exitAccepted,
			[]string{"file_name,"}, []string{"hottest source lines"}},
		{"rows", []string{"--profile-top", "2", "--profile", loop}, exitAccepted, []string{"ITERATIONS"}, nil},
		{"file", []string{"--profile-out", out, loop}, exitAccepted, nil, nil},
		{"unwritable file", []string{"--profile-out", "/nonexistent/p.json", loop}, exitUsage, nil, []string{"--profile-out"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.status {
				t.Fatalf("exit status %d, want %d (stderr %s)", got, tt.status, stderr.String())
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var f profileFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != profileVersion || len(f.Programs) != 1 || f.Programs[0].Profile == nil {
		t.Fatalf("profile file: version %d, %d programs", f.Version, len(f.Programs))
	}
	p := f.Programs[0].Profile
	visits := 0
	for _, in := range p.Insns {
		visits += in.Visits
	}
	if visits != p.InsnProcessed || visits != 100 {
		t.Errorf("visits sum to %d, insn_processed %d, want both 100", visits, p.InsnProcessed)
	}
}

// TestRunSearchColumns checks the columns beyond veristat's that CSV and
// JSON carry: hits, misses, evictions and the stack depth.
func TestRunSearchColumns(t *testing.T) {
	const loop = "../../testdata/progs/bounded_loop.o"
	var stdout, stderr bytes.Buffer
	if got := run([]string{"--format", "csv", loop}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit status %d", got)
	}
	recs, err := csv.NewReader(&stdout).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, h := range recs[0] {
		got[h] = recs[1][i]
	}
	want := map[string]string{"hits": "0", "misses": "24", "evictions": "0", "stack_depth": "0"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("column %s = %q, want %q", k, got[k], v)
		}
	}
	stdout.Reset()
	if got := run([]string{"--format", "json", loop}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit status %d", got)
	}
	rows := decodeRows(t, stdout.Bytes())
	if rows[0].Misses != 24 || rows[0].StackDepths == nil {
		t.Errorf("json row: misses %d, stack depths %v", rows[0].Misses, rows[0].StackDepths)
	}
}

// TestRunBudget checks the explanation under a rejection at the 1M-insn
// limit: the loop that took the budget and its counter, or without a loop
// the hottest lines and the precise index that kept paths apart.
func TestRunBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("two programs at the 1M-insn limit, verified twice each")
	}
	var stdout, stderr bytes.Buffer
	if got := run([]string{"../../testdata/progs/ex_budget.o"}, &stdout, &stderr); got != exitRejected {
		t.Fatalf("exit status %d, want %d", got, exitRejected)
	}
	for _, want := range []string{
		"\tbudget: the budget went to the loop at ex_budget.c:20 (`sum = sum * 31 + i;`): 100.0% of 1,000,001 insns, 166,666 iterations explored",
		"\tbudget: stored states in the loop did not match: 833,206 misses, 100% because R2's range differs (5 vs 6, precise) from the same path's earlier loop iteration",
		"\tbudget: no loop holds the budget; the hottest places are ex_budget.c:77 (`EX_BIT(19);`) 32.4%",
		"\tbudget: stored states did not match: 705,544 misses, 67% because R2's range differs (0 vs 0x80000, precise)",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestRunHTML(t *testing.T) {
	out := filepath.Join(t.TempDir(), "profile.html")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"--html", out, "../../testdata/progs/bounded_loop.o"}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit status %d (stderr %s)", got, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>vercheck profile</title>", `class="src hottest"`, "for (i = 0; i &lt; 16; i&#43;&#43;) {"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestRunWhy checks --why in the table (the explanation under the
// diagnostic) and in JSON (a "why" object on the program's row).
func TestRunWhy(t *testing.T) {
	obj := "../../testdata/progs/map_lookup_unchecked.o"
	var stdout, stderr bytes.Buffer
	if got := run([]string{"--why", obj}, &stdout, &stderr); got != exitRejected {
		t.Fatalf("status %d, stderr %s", got, stderr.String())
	}
	for _, want := range []string{"why: null_unchecked", "6: (85) call bpf_map_lookup_elem#1", "hint: compare R0 with 0"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	if got := run([]string{"--why", "--format", "json", obj}, &stdout, &stderr); got != exitRejected {
		t.Fatalf("status %d, stderr %s", got, stderr.String())
	}
	var rows []struct {
		Why struct {
			Cause  string `json:"cause"`
			Origin struct {
				Insn int `json:"insn"`
			} `json:"origin"`
		} `json:"why"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Why.Cause != "null_unchecked" || rows[0].Why.Origin.Insn != 6 {
		t.Errorf("json rows %+v, want one with cause null_unchecked from insn 6", rows)
	}
}
