package verifier_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestRegInvariantsFlag: an infeasible edge whose refined bounds fail
// reg_bounds_sanity_check is walked with the bounds reset on a normal
// load (the live kernel's verdict in l9_infeasible_edge.c), and fails the
// load under BPF_F_TEST_REG_INVARIANTS, where the kernel's verifier_bug
// warning makes it a program no comparison may load (ErrKernelFault).
func TestRegInvariantsFlag(t *testing.T) {
	obj, err := loader.Open("../testdata/progs/l9_infeasible_edge.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prog  string
		flags uint32
		want  error
	}{
		{"l9_infeasible_one_reg", 0, nil},
		{"l9_infeasible_one_reg", loader.FlagTestRegInvariants, verifier.ErrKernelFault},
		// A register compared with itself fails as true_reg1 and,
		// after the reset, as true_reg2.
		{"l9_infeasible_same_reg", loader.FlagTestRegInvariants, verifier.ErrKernelFault},
		// The single-member rule of the bounds sync leaves this dead
		// edge consistent: nothing to report under the flag either.
		{"l9_infeasible_jeq", loader.FlagTestRegInvariants, nil},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(obj.Programs, func(p *loader.Program) bool { return p.Name == tt.prog })
		if i < 0 {
			t.Fatalf("no program %s", tt.prog)
		}
		q := *obj.Programs[i]
		q.Flags = tt.flags
		res := verifier.Verify(obj, &q, verifier.Options{})
		if !errors.Is(res.Err, tt.want) || (tt.want == nil) != (res.Err == nil) {
			t.Errorf("%s, flags %q: got %v, want %v", tt.prog, loader.FormatProgFlags(tt.flags), res.Err, tt.want)
		}
	}
}
