package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

func TestReadRecords(t *testing.T) {
	tests := []struct {
		name string
		csv  string
		want []record
	}{
		{
			name: "veristat",
			csv:  "file_name,prog_name,verdict,duration,total_insns,total_states,peak_states\nx.o,p,success,12,100,5,4\nx.o,q,failure,3,7,0,0\n",
			want: []record{
				{file: "x.o", prog: "p", values: map[string]string{"verdict": "accepted", "duration": "12", "total_insns": "100", "total_states": "5", "peak_states": "4"}},
				{file: "x.o", prog: "q", values: map[string]string{"verdict": "rejected", "duration": "3", "total_insns": "7", "total_states": "0", "peak_states": "0"}},
			},
		},
		{
			name: "kernel corpus csv, object row skipped",
			csv:  "object,program,verdict,insn_processed,verification_time_usec\nd/a.o,,load-setup-failed,,\nd/b.o,f,accepted,42,9\n",
			want: []record{
				{file: "d/b.o", prog: "f", values: map[string]string{"verdict": "accepted", "total_insns": "42", "duration": "9"}},
			},
		},
		{
			name: "shard CSVs concatenated: the repeated header is no row",
			csv:  "file_name,prog_name,total_insns\na.o,p,1\nfile_name,prog_name,total_insns\nb.o,q,2\n",
			want: []record{
				{file: "a.o", prog: "p", values: map[string]string{"total_insns": "1"}},
				{file: "b.o", prog: "q", values: map[string]string{"total_insns": "2"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readRecords(strings.NewReader(tt.csv))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(record{})); diff != "" {
				t.Errorf("readRecords mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := readRecords(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("readRecords without a program column succeeded")
	}
}

func TestRelativize(t *testing.T) {
	recs := []record{{file: "/c/x/a.o"}, {file: "/c/x/sub/b.o"}, {file: "/c/y/c.o"}}
	relativize(recs)
	var got []string
	for _, r := range recs {
		got = append(got, r.file)
	}
	if diff := cmp.Diff([]string{"x/a.o", "x/sub/b.o", "y/c.o"}, got); diff != "" {
		t.Errorf("relativize mismatch (-want +got):\n%s", diff)
	}
}

// testPairs joins two small sides.
func testPairs() []pair {
	rec := func(prog, verdict, insns string) record {
		return record{file: "o.o", prog: prog, values: map[string]string{"verdict": verdict, "total_insns": insns}}
	}
	a := []record{rec("big", "accepted", "2000"), rec("small", "accepted", "10"), rec("gone", "rejected", "5")}
	b := []record{rec("small", "accepted", "20"), rec("big", "accepted", "1000"), rec("new", "accepted", "3000")}
	return join(a, b)
}

func progNames(ps []pair) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.prog)
	}
	return out
}

func TestFiltersAndSort(t *testing.T) {
	tests := []struct {
		name    string
		filters []string
		sort    string
		want    []string
	}{
		{"join order", nil, "", []string{"big", "small", "gone", "new"}},
		{"either side", []string{"insn_processed>1000"}, "", []string{"big", "new"}},
		{"a side", []string{"total_insns_a>=1000"}, "", []string{"big"}},
		{"diff", []string{"insns_diff<0"}, "", []string{"big"}},
		{"pct", []string{"insns_pct=100"}, "", []string{"small"}},
		{"glob", []string{"s*"}, "", []string{"small"}},
		{"object glob", []string{"o.o/b*"}, "", []string{"big"}},
		{"deny glob", []string{"!*e*"}, "", []string{"big", "small"}},
		{"verdict", []string{"verdict_a=rejected"}, "", []string{"gone"}},
		{"sort diff desc", nil, "insns_diff", []string{"small", "big", "gone", "new"}},
		{"sort b asc", nil, "total_insns_b:asc", []string{"small", "big", "new", "gone"}},
		{"sort name", nil, "prog_name", []string{"big", "gone", "new", "small"}},
		{"verdicts differ", []string{"verdict_a!=verdict_b"}, "", nil},
		{"verdicts equal", []string{"verdict_a=verdict_b"}, "", []string{"big", "small"}},
		{"figure vs figure", []string{"total_insns_b>total_insns_a"}, "", []string{"small"}},
		{"sort caret asc", nil, "^total_insns_b", []string{"small", "big", "new", "gone"}},
		{"sort v desc", nil, "total_insns_bv", []string{"new", "big", "small", "gone"}},
		{"sort abs diff", nil, "|insns_diff|", []string{"big", "small", "gone", "new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs []filter
			for _, s := range tt.filters {
				f, err := parseFilter(s)
				if err != nil {
					t.Fatal(err)
				}
				fs = append(fs, f)
			}
			keys, err := parseSort(tt.sort)
			if err != nil {
				t.Fatal(err)
			}
			got := applyFilters(testPairs(), fs)
			sortPairs(got, keys)
			if diff := cmp.Diff(tt.want, progNames(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFilterErrors(t *testing.T) {
	for _, s := range []string{"bogus>1", "insns>many", "[", "insns_pct:3<2"} {
		if _, err := parseFilter(s); err == nil {
			t.Errorf("parseFilter(%q) succeeded", s)
		}
	}
	for _, s := range []string{"bogus", "insns:sideways"} {
		if _, err := parseSort(s); err == nil {
			t.Errorf("parseSort(%q) succeeded", s)
		}
	}
}

func TestCells(t *testing.T) {
	ps := testPairs()
	type cells struct{ A, B, Diff string }
	var got []cells
	for _, p := range ps {
		for _, f := range []string{figVerdict, figInsns} {
			a, b, d := p.cells(f)
			got = append(got, cells{a, b, d})
		}
	}
	want := []cells{
		{"accepted", "accepted", "MATCH"}, {"2000", "1000", "-1000 (-50.00%)"},
		{"accepted", "accepted", "MATCH"}, {"10", "20", "+10 (+100.00%)"},
		{"rejected", "-", "-"}, {"5", "-", "-"},
		{"-", "accepted", "-"}, {"-", "3000", "-"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cells mismatch (-want +got):\n%s", diff)
	}
}

func TestRunCompareCSV(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(a, []byte("file_name,prog_name,verdict,total_insns\n/x/p.o,f,accepted,100\n/x/p.o,g,accepted,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("object,program,verdict,insn_processed\np.o,f,accepted,110\np.o,g,rejected,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--format", "csv", "-e", "verdict,insns", "-f", "insns>50", a, b}
	if got := runCompare(args, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit %d: %s", got, stderr.String())
	}
	want := "file_name,prog_name,verdict_a,verdict_b,verdict_diff,total_insns_a,total_insns_b,total_insns_diff\n" +
		"p.o,f,accepted,accepted,MATCH,100,110,+10 (+10.00%)\n"
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Errorf("compare output mismatch (-want +got):\n%s", diff)
	}
}

func TestRunCompareObjects(t *testing.T) {
	var stdout, stderr bytes.Buffer
	obj := "../../testdata/progs/straight_line.o"
	if got := runCompare([]string{obj, obj}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit %d: %s", got, stderr.String())
	}
	if !strings.Contains(stdout.String(), "straight_line") || !strings.Contains(stdout.String(), "MATCH") {
		t.Errorf("compare of an object with itself:\n%s", stdout.String())
	}
}

func TestRunComparePolicies(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"--policies", "default;nodrop,free=end", "../../testdata/progs/pruning.o"}
	if got := runCompare(args, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit %d: %s", got, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"POLICY", "default", "nodrop,free=end", "ALLOC_MiB", "SPEEDUP"} {
		if !strings.Contains(out, want) {
			t.Errorf("policy table lacks %q:\n%s", want, out)
		}
	}
}

func TestRunCompareBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"one input", []string{"a.csv"}},
		{"bad filter", []string{"-f", "nope>1", "a.csv", "b.csv"}},
		{"bad sort", []string{"-s", "nope", "a.csv", "b.csv"}},
		{"bad figure", []string{"-e", "nope", "a.csv", "b.csv"}},
		{"missing file", []string{"/nonexistent/a.csv", "/nonexistent/b.csv"}},
		{"bad policy", []string{"--policies", "miss>x", "x.o"}},
		{"bad format", []string{"--format", "json", "a.csv", "b.csv"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := runCompare(tt.args, &stdout, &stderr); got != exitUsage {
				t.Errorf("exit %d, want %d", got, exitUsage)
			}
		})
	}
}

func TestSplitPolicies(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"default,nodrop", []string{"default", "nodrop"}},
		{"default; nodrop,free=end ;", []string{"default", "nodrop,free=end"}},
		{"miss>5*hit+2", []string{"miss>5*hit+2"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, splitPolicies(tt.in)); diff != "" {
			t.Errorf("splitPolicies(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestQuantile(t *testing.T) {
	vals := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		q    float64
		want float64
	}{{0.5, 5}, {0.9, 9}, {1, 10}, {0, 1}}
	for _, tt := range tests {
		if got := quantile(vals, tt.q); got != tt.want {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
}

// TestJoinBySuffix: records join by program and the longest common suffix
// of their object paths; a tie stays unjoined.
func TestJoinBySuffix(t *testing.T) {
	rec := func(file, prog string) record { return record{file: file, prog: prog} }
	a := []record{rec("cilium/bpf_lxc.o", "p"), rec("other/bpf_lxc.o", "p"), rec("x/y/z.o", "q"), rec("m.o", "r")}
	b := []record{rec("bpf_lxc.o", "p"), rec("y/z.o", "q"), rec("ovs/m.o", "r"), rec("n.o", "s")}
	type joined struct{ A, B string }
	var got []joined
	for _, p := range join(a, b) {
		var j joined
		if p.a != nil {
			j.A = p.a.file
		}
		if p.b != nil {
			j.B = p.b.file
		}
		got = append(got, j)
	}
	want := []joined{
		{"cilium/bpf_lxc.o", ""}, {"other/bpf_lxc.o", ""}, {"x/y/z.o", "y/z.o"}, {"m.o", "ovs/m.o"},
		{"", "bpf_lxc.o"}, {"", "n.o"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("join mismatch (-want +got):\n%s", diff)
	}
}

// TestRunCompareVeristatFolderWithTree: a veristat CSV with base names
// joins a vercheck CSV of a directory tree, and the join is reported.
func TestRunCompareVeristatFolderWithTree(t *testing.T) {
	dir := t.TempDir()
	vs := filepath.Join(dir, "veristat.csv")
	tree := filepath.Join(dir, "tree.csv")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(vs, []byte("file_name,prog_name,verdict,duration,total_insns,total_states,peak_states\n"+
		"straight_line.o,straight_line,success,10,3,0,0\nmap_lookup_unchecked.o,map_lookup_unchecked,failure,10,7,0,0\n"), 0o644))
	must(os.WriteFile(tree, []byte("file_name,prog_name,verdict,total_insns\n"+
		"progs/a/straight_line.o,straight_line,accepted,3\nprogs/b/map_lookup_unchecked.o,map_lookup_unchecked,accepted,9\nprogs/c.o,extra,accepted,1\n"), 0o644))
	var stdout, stderr bytes.Buffer
	if got := run([]string{"compare", "-f", "verdict_a!=verdict_b", vs, tree}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit %d: %s", got, stderr.String())
	}
	if !strings.Contains(stderr.String(), "joined 2 of 3 programs; 0 only in A, 1 only in B") {
		t.Errorf("join summary missing:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "map_lookup_unchecked") || strings.Contains(stdout.String(), "straight_line") {
		t.Errorf("verdict mismatch filter shows:\n%s", stdout.String())
	}
}

// TestRunCompareJSON: compare's JSON has each figure's sides and change.
func TestRunCompareJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	obj := "../../testdata/progs/map_lookup_unchecked.o"
	if got := run([]string{"compare", "--format", "json", "-e", "verdict,total_insns", obj, obj}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit %d: %s", got, stderr.String())
	}
	var got []compareJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []compareJSON{{Program: "map_lookup_unchecked", Figures: map[string]compareJSONFigure{
		"verdict":     {"rejected", "rejected", "MATCH"},
		"total_insns": {"7", "7", "+0 (+0.00%)"},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compare JSON mismatch (-want +got):\n%s", diff)
	}
}

// TestRunComparePoliciesFormats: --policies honours -s, -e and --format.
func TestRunComparePoliciesFormats(t *testing.T) {
	objs := []string{"../../testdata/progs/pruning.o", "../../testdata/progs/bounded_loop.o"}
	var stdout, stderr bytes.Buffer
	args := append([]string{"--policies", "default,nodrop", "--format", "json", "-e", "total_insns", "-s", "total_insns_a:asc"}, objs...)
	if got := runCompare(args, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("exit %d: %s", got, stderr.String())
	}
	var rows []policyRow
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	type run struct{ Program, Policy, Insns string }
	var got []run
	for _, r := range rows {
		if len(r.Figures) != 1 || r.Allocated == 0 {
			t.Errorf("%s/%s: figures %v, allocated %d", r.Program, r.Policy, r.Figures, r.Allocated)
		}
		got = append(got, run{r.Program, r.Policy, r.Figures["total_insns"]})
	}
	want := []run{
		{"bounded_loop", "default", "100"}, {"bounded_loop", "nodrop", "100"},
		{"pruning", "default", "165"}, {"pruning", "nodrop", "165"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy rows mismatch (-want +got):\n%s", diff)
	}
}

// TestMeasureStartsCold: the same program verified twice in a row
// allocates about as much the second time; without the cold start the
// second run reused the first run's states and reported a fraction.
func TestMeasureStartsCold(t *testing.T) {
	obj, err := loader.Open("../../testdata/progs/pruning.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prog := obj.Programs[0]
	for _, p := range obj.Programs {
		if len(p.Instructions) > len(prog.Instructions) {
			prog = p
		}
	}
	_, first := measure(obj, prog, verifier.Options{})
	_, second := measure(obj, prog, verifier.Options{})
	if lo, hi := float64(first)*0.8, float64(first)*1.25; float64(second) < lo || float64(second) > hi {
		t.Errorf("allocated %d bytes, then %d for the same program: outside [%.0f, %.0f]", first, second, lo, hi)
	}
}

// TestCompareProfile compares the profiles of two builds given as
// --profile-out files: the table and the JSON name the line that grew.
func TestCompareProfile(t *testing.T) {
	dir := t.TempDir()
	obj := "../../testdata/progs/bounded_loop.o"
	a := filepath.Join(dir, "a.json")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"-q", "--profile-out", a, obj}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("status %d: %s", got, stderr.String())
	}
	// Build B: the loop's body visited twice as often.
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	var f profileFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	body := &f.Programs[0].Profile.Lines[2]
	body.Visits *= 2
	b := filepath.Join(dir, "b.json")
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, out, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if got := runCompare([]string{"--profile", a, b}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("status %d: %s", got, stderr.String())
	}
	want := fmt.Sprintf("+%d", body.Visits/2)
	if !strings.Contains(stdout.String(), "bounded_loop: insn_processed 100 -> 100 (+0)") || !strings.Contains(stdout.String(), want) ||
		!strings.Contains(stdout.String(), strings.TrimSpace(body.Source)) {
		t.Errorf("table lacks the grown line (%s %s):\n%s", want, body.Source, stdout.String())
	}
	stdout.Reset()
	if got := runCompare([]string{"--profile", "--format", "json", a, b}, &stdout, &stderr); got != exitAccepted {
		t.Fatalf("status %d: %s", got, stderr.String())
	}
	var cf profileCompareFile
	if err := json.Unmarshal(stdout.Bytes(), &cf); err != nil {
		t.Fatal(err)
	}
	if len(cf.Programs) != 1 || len(cf.Programs[0].Changes) != 1 || cf.Programs[0].Changes[0].Diff != body.Visits/2 {
		t.Errorf("json %+v, want one change of %d", cf, body.Visits/2)
	}
}
