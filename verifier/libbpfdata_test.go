package verifier

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// libbpfOutcome is what a test of libbpf-only object features expects of
// one program: accepted, or refused with errno and a message that
// contains msg.
type libbpfOutcome struct {
	Accepted bool
	Errno    string
	Msg      string
}

// verifyOutcomes verifies every program of the object at path and returns
// each one's outcome, with got's Msg set to want's where it contains it
// (so that a diff shows only real differences).
func verifyOutcomes(t *testing.T, path string, want map[string]libbpfOutcome) map[string]libbpfOutcome {
	t.Helper()
	obj, err := loader.Open(path, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]libbpfOutcome{}
	for _, p := range obj.Programs {
		r := Verify(obj, p, Options{})
		if r.Err == nil {
			got[p.Name] = libbpfOutcome{Accepted: true}
			continue
		}
		var re *RejectError
		if !errors.As(r.Err, &re) || re.kind != nil {
			t.Fatalf("%s: %s (%v), want a verdict", p.Name, r.Verdict(), r.Err)
		}
		o := libbpfOutcome{Errno: r.Errno().Error(), Msg: re.Msg}
		if w := want[p.Name].Msg; w != "" && strings.Contains(o.Msg, w) {
			o.Msg = w
		}
		got[p.Name] = o
	}
	return got
}

// TestPercpuData checks testdata/progs/s40_percpu_data.c: per-CPU global
// data, which libbpf 1.8 does not create on a kernel without direct value
// access to per-CPU arrays, so that every program loading such a
// variable's address, reached or not, names a descriptor that is no map.
func TestPercpuData(t *testing.T) {
	const noMap = "fd 0 is not pointing to valid bpf_map"
	want := map[string]libbpfOutcome{
		"s40_percpu_load":      {Errno: "invalid argument", Msg: noMap},
		"s40_percpu_unreached": {Errno: "invalid argument", Msg: noMap},
		"s40_plain_data":       {Accepted: true},
	}
	got := verifyOutcomes(t, "../testdata/progs/s40_percpu_data.o", want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// TestJumpTables checks testdata/progs/s40_jump_tables.c: a program that
// loads a jump table's address, in its own code or a subprogram's, reached
// or not, is libbpf's refusal (EINVAL: no BPF_MAP_TYPE_INSN_ARRAY in 6.18);
// gotox itself is an unknown opcode to 6.18.
func TestJumpTables(t *testing.T) {
	refused := libbpfOutcome{Errno: "invalid argument", Msg: loader.ErrJumpTable.Error()}
	want := map[string]libbpfOutcome{
		"s40_jump_table":           refused,
		"s40_jump_table_unreached": refused,
		"s40_jump_table_subprog":   refused,
		"s40_gotox":                {Errno: "invalid argument", Msg: "unknown opcode 0d"},
		"s40_no_jump_table":        {Accepted: true},
	}
	got := verifyOutcomes(t, "../testdata/progs/s40_jump_tables.o", want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}
