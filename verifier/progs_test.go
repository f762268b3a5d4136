package verifier_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/progtest"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// TestProgs verifies every program of testdata/progs and compares the
// verdict and message with the expectation written next to the program
// (the live kernel's, see kernel-golden.json), with every stable fix and
// without each fix the verdict depends on, and the figures with the
// kernel's recorded ones.
func TestProgs(t *testing.T) {
	cases, err := progtest.Cases("../testdata/progs")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("only %d cases in testdata/progs", len(cases))
	}
	objs := map[string]*loader.Object{}
	for _, c := range cases {
		t.Run(c.Program, func(t *testing.T) {
			obj, ok := objs[c.ObjectPath]
			if !ok {
				obj, err = loader.Open(c.ObjectPath, loader.Options{})
				if err != nil {
					t.Fatal(err)
				}
				objs[c.ObjectPath] = obj
			}
			var prog *loader.Program
			for _, p := range obj.Programs {
				if p.Name == c.Program {
					prog = p
				}
			}
			if prog == nil {
				t.Fatalf("program %s not in %s", c.Program, c.ObjectPath)
			}
			skipIfSymbolVisible(t, c.Expectation)
			verify := func(missing stablefix.Set) (*verifier.Result, string) {
				res := verifier.Verify(obj, prog, verifier.Options{MissingFixes: missing})
				msg := ""
				if res.Err != nil {
					msg = verifier.DecisiveLine(res.Err)
				}
				return res, msg
			}
			// The verdict with every stable fix, and without each fix
			// the program's verdict depends on.
			sets := []stablefix.Set{stablefix.Set{}}
			for _, v := range c.Variants {
				sets = append(sets, v.Without)
			}
			for _, missing := range sets {
				want := c.On(missing)
				res, msg := verify(missing)
				if res.Verdict() == "unsupported" && !want.Accept {
					// An honest "unsupported" is never an unsafe accept.
					t.Skipf("kernel rejects (%q); vercheck: %s", want.Msg, msg)
				}
				if !want.Matches(res.Accepted, msg) {
					t.Errorf("lacking %v: verdict %s (%q), want accept=%v msg %q", missing, res.Verdict(), msg, want.Accept, want.Msg)
				}
			}
			if !c.HasGolden {
				return
			}
			// The kernel's figures are reproduced exactly on these
			// programs, under the semantics of the kernel that recorded
			// them: any difference is a regression.
			missing, err := c.Golden.Missing()
			if err != nil {
				t.Fatal(err)
			}
			res, _ := verify(missing)
			t.Logf("insn_processed %d (kernel %d), total_states %d (kernel %d), peak_states %d (kernel %d)",
				res.Stats.InsnProcessed, c.Golden.InsnProcessed, res.Stats.TotalStates, c.Golden.TotalStates,
				res.Stats.PeakStates, c.Golden.PeakStates)
			want := [3]int{c.Golden.InsnProcessed, c.Golden.TotalStates, c.Golden.PeakStates}
			got := [3]int{res.Stats.InsnProcessed, res.Stats.TotalStates, res.Stats.PeakStates}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("insn_processed, total_states, peak_states differ from the kernel's (-kernel +vercheck):\n%s", diff)
			}
		})
	}
}

// skipIfSymbolVisible skips a program whose recorded rejection is a ksym
// the recording kernel's kallsyms lacked, when this kernel's lists it:
// vercheck reads the running kernel's kallsyms, as the kernel does, so
// its verdict follows this machine, not the record.
func skipIfSymbolVisible(t *testing.T, e progtest.Expectation) {
	t.Helper()
	sym, ok := e.HiddenKernelSymbol()
	if !ok {
		return
	}
	if addr, _, err := loader.KernelSymbol(sym); err == nil && addr != 0 {
		t.Skipf("recorded on a kernel whose kallsyms lacks %s (no CONFIG_KALLSYMS_ALL); this kernel lists it", sym)
	}
}
