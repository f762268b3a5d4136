package oracle

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// diamonds is an XDP program of n branches, one on each bit of an
// unknown number, each joining again: pruning walks it in a few instructions per branch, a
// search without checkpoints takes 2^n paths and meets the complexity
// limit.
func diamonds(n int) *ebpf.CollectionSpec {
	insns := asm.Instructions{asm.FnGetPrandomU32.Call(), asm.Mov.Reg(asm.R6, asm.R0)}
	for i := range n {
		join := "join" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		insns = append(insns,
			asm.JSet.Imm(asm.R6, int32(1)<<i, join),
			asm.Mov.Imm(asm.R0, 1),
			asm.Mov.Imm(asm.R0, 2),
			asm.Mov.Imm(asm.R0, 3).WithSymbol(join),
		)
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 2), asm.Return())
	prog := &ebpf.ProgramSpec{Name: "diamonds", Type: ebpf.XDP, License: "GPL", Instructions: insns}
	return &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{prog.Name: prog}, Maps: map[string]*ebpf.MapSpec{}}
}

// TestSelfCheck checks the oracle for programs without a kernel verdict.
// The pkt-regsafe probe, verified as for a kernel that lacks that fix,
// is the unsound pruning of a real kernel: the path that reads the packet
// unchecked is pruned against the checked one and the program accepted.
// Without checkpoints that path is walked and rejected: PruningDiffers,
// found with no kernel. A program whose search without checkpoints meets
// the complexity limit says nothing and stays KernelNoLoad, as does the
// probe verified with the fix.
func TestSelfCheck(t *testing.T) {
	probe, err := stablefix.ProbeProgram(stablefix.PktRegsafe)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		spec    *ebpf.CollectionSpec
		missing stablefix.Set
		// accepted is vercheck's verdict with pruning.
		accepted bool
		want     Class
		reason   string
	}{
		{"unsound pruning (pkt-regsafe missing)", probe, stablefix.Of(stablefix.PktRegsafe), true, PruningDiffers, "RN offset is outside of the packet"},
		{"sound pruning (pkt-regsafe applied)", probe, stablefix.Set{}, false, KernelNoLoad, kNoLoad.Err},
		{"complexity limit without checkpoints", diamonds(24), stablefix.Set{}, true, KernelNoLoad, kNoLoad.Err},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := loader.FromCollectionSpec(tc.name, tc.spec, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prog := obj.Programs[0]
			res := verifier.Verify(obj, prog, verifier.Options{MissingFixes: tc.missing})
			if res.Accepted != tc.accepted {
				t.Fatalf("vercheck with pruning: %s (%v), want accepted %v", res.Verdict(), res.Err, tc.accepted)
			}
			opts := Options{MissingFixes: tc.missing, SelfCheck: true}
			o := Outcome{Vercheck: res, Kernel: kNoLoad, Class: classify(res, kNoLoad, false)}
			if o.Class == KernelNoLoad && opts.SelfCheck && res.Accepted {
				selfCheck(&o, obj, prog, opts)
			}
			if o.Class != tc.want || o.Reason() != tc.reason {
				t.Errorf("class %s, reason %q; want %s, %q", o.Class, o.Reason(), tc.want, tc.reason)
			}
			if tc.name == "complexity limit without checkpoints" {
				noCheckpoints := prune.NoCheckpointPolicy()
				if r := verifier.Verify(obj, prog, verifier.Options{Policy: &noCheckpoints}); !errors.Is(r.Err, verifier.ErrComplexityLimit) {
					t.Errorf("without checkpoints: %s (%v), want the complexity limit", r.Verdict(), r.Err)
				}
			}
			if o.Class == PruningDiffers && (o.Vercheck.Accepted || errors.Is(o.Vercheck.Err, verifier.ErrComplexityLimit)) {
				t.Errorf("a pruning difference keeps the verification without checkpoints, got %s (%v)", o.Vercheck.Verdict(), o.Vercheck.Err)
			}
		})
	}
}
