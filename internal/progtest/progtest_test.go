package progtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vercheck/vercheck/stablefix"
)

// writeFiles creates name -> contents files in a fresh directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// equateSets compares stable fix sets with ==.
var equateSets = cmpopts.EquateComparable(stablefix.Set{})

func TestLoad(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b.c": `#include "progs.h"

/* A comment between the expectation and the function is fine. */
// vercheck: reject "R0 invalid mem access 'map_value_or_null'"
SEC("socket")
__naked int second(void)
{
}

// vercheck: accept
SEC("xdp") int first(struct xdp_md *ctx) { return 2; }

static __noinline int helper(int x) { return x; }
`,
		"a.c": `// vercheck: reject "say \"hi\""
__attribute__((naked)) SEC("tc")
int only(void)
{
}
`,
		"c.c": `// vercheck: reject "R9 offset is outside of the packet"
// vercheck: accept without pkt-range-arith
// vercheck: reject "other" without jmp32-ptr-null
// vercheck: accept without iter-fp0, pkt-regsafe
SEC("xdp") int fixed(struct xdp_md *ctx) { return 2; }
`,
		"notes.txt": "// vercheck: accept\n",
	})
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Expectation{
		{File: "a.c", Program: "only", Msg: `say "hi"`},
		{File: "b.c", Program: "first", Accept: true},
		{File: "b.c", Program: "second", Msg: "R0 invalid mem access 'map_value_or_null'"},
		{File: "c.c", Program: "fixed", Msg: "R9 offset is outside of the packet", Variants: []Variant{
			{Without: stablefix.Of(stablefix.PktRangeArith), Accept: true},
			{Without: stablefix.Of(stablefix.Jmp32PtrNull), Msg: "other"},
			{Without: stablefix.Of(stablefix.IterFP0, stablefix.PktRegsafe), Accept: true},
		}},
	}
	if diff := cmp.Diff(want, got, equateSets); diff != "" {
		t.Errorf("Load mismatch (-want +got):\n%s", diff)
	}
}

func TestExpectationOn(t *testing.T) {
	e := Expectation{File: "c.c", Program: "p", Msg: "strict", Variants: []Variant{
		{Without: stablefix.Of(stablefix.PktRangeArith), Accept: true},
		{Without: stablefix.Of(stablefix.Jmp32PtrNull), Msg: "lax"},
		{Without: stablefix.Of(stablefix.IterFP0, stablefix.PktRegsafe), Msg: "both"},
	}}
	tests := []struct {
		missing stablefix.Set
		want    Expectation
	}{
		{stablefix.Set{}, Expectation{File: "c.c", Program: "p", Msg: "strict"}},
		{stablefix.Of(stablefix.PktRangeArith), Expectation{File: "c.c", Program: "p", Accept: true}},
		{stablefix.Of(stablefix.Jmp32PtrNull), Expectation{File: "c.c", Program: "p", Msg: "lax"}},
		// A variant of two fixes applies only where both are missing.
		{stablefix.Of(stablefix.IterFP0), Expectation{File: "c.c", Program: "p", Msg: "strict"}},
		{stablefix.Of(stablefix.IterFP0, stablefix.PktRegsafe), Expectation{File: "c.c", Program: "p", Msg: "both"}},
		{stablefix.Everything, Expectation{File: "c.c", Program: "p", Accept: true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, e.On(tt.missing), equateSets); diff != "" {
			t.Errorf("On(%v) mismatch (-want +got):\n%s", tt.missing, diff)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := map[string]string{
		"unknown verdict":     "// vercheck: maybe\nint f(void) {}\n",
		"unquoted message":    "// vercheck: reject R0 !read_ok\nint f(void) {}\n",
		"empty message":       "// vercheck: reject \"\"\nint f(void) {}\n",
		"accept with message": "// vercheck: accept \"x\"\nint f(void) {}\n",
		"no function after":   "int f(void) {}\n// vercheck: accept\n",
		"two in a row":        "// vercheck: accept\n// vercheck: accept\nint f(void) {}\n",
		"variant first":       "// vercheck: accept without pkt-range-arith\nint f(void) {}\n",
		"unknown fix":         "// vercheck: accept\n// vercheck: accept without nothing\nint f(void) {}\n",
		"no fix":              "// vercheck: accept\n// vercheck: accept without none\nint f(void) {}\n",
		"one unknown of two":  "// vercheck: accept\n// vercheck: accept without iter-fp0,nothing\nint f(void) {}\n",
		"junk after verdict":  "// vercheck: reject \"x\" please\nint f(void) {}\n",
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"x.c": src})
			if _, err := Load(dir); !errors.Is(err, ErrSyntax) {
				t.Errorf("Load error = %v, want ErrSyntax", err)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	accept := Expectation{Accept: true}
	reject := Expectation{Msg: "R0 !read_ok"}
	tests := []struct {
		name     string
		e        Expectation
		accepted bool
		errMsg   string
		want     bool
	}{
		{"accept accepted", accept, true, "", true},
		{"accept rejected", accept, false, "R0 !read_ok", false},
		{"reject accepted", reject, true, "", false},
		{"reject same message", reject, false, "R0 !read_ok", true},
		{"reject substring", Expectation{Msg: "outside of the packet"}, false, "R1 offset is outside of the packet", true},
		{"reject other message", reject, false, "frame pointer is read only", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.Matches(tt.accepted, tt.errMsg); got != tt.want {
				t.Errorf("Matches(%v, %q) = %v, want %v", tt.accepted, tt.errMsg, got, tt.want)
			}
		})
	}
}

func TestObject(t *testing.T) {
	if diff := cmp.Diff("map_value_oob.o", Expectation{File: "map_value_oob.c"}.Object()); diff != "" {
		t.Errorf("Object mismatch (-want +got):\n%s", diff)
	}
}

func TestCases(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.c": "// vercheck: accept\nint ok(void) {}\n// vercheck: reject \"R0 !read_ok\"\nint bad(void) {}\n",
		GoldenName: `[{"file": "a.o", "program": "ok", "verdict": "accepted", "insn_processed": 2,
			"max_states_per_insn": 0, "total_states": 0, "peak_states": 0, "stack_depth": "0", "kernel_release": "r"}]`,
	})
	got, err := Cases(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Case{
		{Expectation: Expectation{File: "a.c", Program: "bad", Msg: "R0 !read_ok"}, ObjectPath: filepath.Join(dir, "a.o")},
		{
			Expectation: Expectation{File: "a.c", Program: "ok", Accept: true},
			ObjectPath:  filepath.Join(dir, "a.o"),
			Golden:      Golden{File: "a.o", Program: "ok", Verdict: VerdictAccepted, InsnProcessed: 2, StackDepth: "0", Release: "r"},
			HasGolden:   true,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Cases mismatch (-want +got):\n%s", diff)
	}
}

func TestCasesCheckedIn(t *testing.T) {
	cases, err := Cases(filepath.Join("..", "..", "testdata", "progs"))
	if err != nil {
		t.Fatal(err)
	}
	const minPrograms = 24 // the brief asks for at least this many programs
	if len(cases) < minPrograms {
		t.Errorf("got %d cases, want at least %d", len(cases), minPrograms)
	}
	for _, c := range cases {
		if !c.HasGolden {
			t.Errorf("%s: %s: no golden record", c.File, c.Program)
		}
	}
}

func TestHiddenKernelSymbol(t *testing.T) {
	tests := []struct {
		msg  string
		sym  string
		want bool
	}{
		{"ldimm64 failed to find the address for kernel symbol 'runqueues'.", "runqueues", true},
		{"R0 invalid mem access 'map_value_or_null'", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		sym, ok := Expectation{Msg: tt.msg}.HiddenKernelSymbol()
		if sym != tt.sym || ok != tt.want {
			t.Errorf("HiddenKernelSymbol(%q) = %q, %v; want %q, %v", tt.msg, sym, ok, tt.sym, tt.want)
		}
	}
}
