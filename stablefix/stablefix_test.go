package stablefix_test

import (
	"errors"
	"testing"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/stablefix"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    stablefix.Set
		wantErr error
	}{
		{"", stablefix.Set{}, nil},
		{"none", stablefix.Set{}, nil},
		{"all", stablefix.Everything, nil},
		{"pkt-range-arith", stablefix.Of(stablefix.PktRangeArith), nil},
		{"jmp32-ptr-null, pkt-range-arith", stablefix.Of(stablefix.PktRangeArith, stablefix.Jmp32PtrNull), nil},
		{"varwrite-keeps-spill,sync-linked-keeps-id", stablefix.Of(stablefix.VarWriteKeepsSpill, stablefix.SyncLinkedKeepsID), nil},
		{"pkt-range", stablefix.Set{}, stablefix.ErrUnknownFix},
	}
	for _, tt := range tests {
		got, err := stablefix.Parse(tt.in)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("Parse(%q) error %v, want %v", tt.in, err, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestStringRoundTrip: a set's String parses back to it, for the empty
// set, every set of one or two fixes, every set of all fixes but one or
// two, and the full set (all 2^n sets are too many once n passes 20).
func TestStringRoundTrip(t *testing.T) {
	sets := []stablefix.Set{stablefix.Set{}, stablefix.Everything}
	for _, f := range stablefix.All() {
		for _, g := range stablefix.All() {
			two := stablefix.Of(f, g)
			sets = append(sets, two, stablefix.Everything.Minus(two))
		}
	}
	for _, s := range sets {
		got, err := stablefix.Parse(s.String())
		if err != nil {
			t.Fatalf("Parse(%q): %v", s.String(), err)
		}
		if got != s {
			t.Errorf("round trip of %v gave %v", s, got)
		}
		if back := stablefix.Of(s.Fixes()...); back != s {
			t.Errorf("Of(%v.Fixes()) = %v", s, back)
		}
	}
}

// TestSetHoldsEveryFix: Set has a bit for every fix.
func TestSetHoldsEveryFix(t *testing.T) {
	for _, f := range stablefix.All() {
		if !stablefix.Everything.Has(f) || stablefix.Of(f).Empty() {
			t.Errorf("%v has no bit in Set", f)
		}
	}
}

// TestProbeLive: the running kernel gives a verdict on every probe.
func TestProbeLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	missing, err := stablefix.Probe()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the running kernel lacks: %v", missing)
}
