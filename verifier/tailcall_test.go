package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTailCallPokes checks testdata/tailcall/pokes.c, each verdict taken
// from the live kernel: more than 1,024 tail calls the JIT patches into
// direct jumps (the same in-range constant index on every path, reached,
// over the program and its subprograms) are refused after the walk with
// ENOSPC; variable, poisoned, out-of-range and dead ones do not count.
func TestTailCallPokes(t *testing.T) {
	refused := libbpfOutcome{Errno: "no space left on device", Msg: "adding tail call poke descriptor failed"}
	accepted := libbpfOutcome{Accepted: true}
	want := map[string]libbpfOutcome{
		"pokes_1024":           accepted,
		"pokes_1025":           refused,
		"pokes_main500_sub600": refused,
		"pokes_main400_sub600": accepted,
		"pokes_key_past_array": accepted,
		"pokes_variable_key":   accepted,
		"pokes_two_keys":       accepted,
		"pokes_same_key_twice": refused,
		"pokes_dead":           accepted,
	}
	got := verifyOutcomes(t, "testdata/tailcall/pokes.o", want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}
