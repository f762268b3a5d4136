package prune

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePolicy(t *testing.T) {
	def := DefaultPolicy()
	with := func(name string, f func(p *Policy)) Policy {
		p := DefaultPolicy()
		p.Name = name
		f(&p)
		return p
	}
	tests := []struct {
		in   string
		want Policy
	}{
		{"", def},
		{"  ", def},
		{"default", with("default", func(*Policy) {})},
		{"kernel", with("kernel", func(*Policy) {})},
		{"nodrop", with("nodrop", func(p *Policy) { p.Evict = false })},
		{"miss>5*hit+2", with("miss>5*hit+2", func(p *Policy) { p.MissMul, p.MissAdd = 5, 2 })},
		{"miss>0*hit+0", with("miss>0*hit+0", func(p *Policy) { p.MissMul, p.MissAdd = 0, 0 })},
		{"free=branches", with("free=branches", func(p *Policy) { p.Freeing = FreeBranches })},
		{"free=done", with("free=done", func(p *Policy) { p.Freeing = FreeLivenessDone })},
		{"free=end", with("free=end", func(p *Policy) { p.Freeing = FreeAtEnd })},
		{"nodrop,free=end", with("nodrop,free=end", func(p *Policy) { p.Evict, p.Freeing = false, FreeAtEnd })},
		{" kernel , free=done ", with("kernel , free=done", func(p *Policy) { p.Freeing = FreeLivenessDone })},
		{"force=128", with("force=128", func(p *Policy) { p.ForceMul = 128 })},
		{"checkpoint=1/4,loop=10/50", with("checkpoint=1/4,loop=10/50", func(p *Policy) {
			p.MinJumps, p.MinInsns, p.LoopJumps, p.LoopInsns = 1, 4, 10, 50
		})},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePolicy(tt.in)
			if err != nil {
				t.Fatalf("ParsePolicy(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePolicy(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		in, wantMsg string
	}{
		{"fast", `unknown option "fast"`},
		{"nodrop,", "empty option"},
		{"miss>3*hit", "want miss>A*hit+B"},
		{"miss>x*hit+3", `bad number "x"`},
		{"miss>-1*hit+3", `negative number "-1"`},
		{"miss>3*hit+99999999999", `bad number "99999999999"`},
		{"free=never", "want free=branches, free=done or free=end"},
		{"force=", `bad number ""`},
		{"checkpoint=2", "want JUMPS/INSNS"},
		{"loop=20/x", `bad number "x"`},
		{"speed=3", `unknown option "speed=3"`},
		{"nodrop,miss>3*hit+3", `option "miss>3*hit+3" conflicts with an earlier one`},
		{"free=end,free=done", `option "free=done" conflicts`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePolicy(tt.in)
			if err == nil {
				t.Fatalf("ParsePolicy(%q) succeeded, want error containing %q", tt.in, tt.wantMsg)
			}
			if !errors.Is(err, ErrBadPolicy) {
				t.Errorf("ParsePolicy(%q) = %v, not wrapping ErrBadPolicy", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("ParsePolicy(%q) = %q, want it to contain %q", tt.in, err, tt.wantMsg)
			}
			if !strings.HasPrefix(err.Error(), "policy ") {
				t.Errorf("ParsePolicy(%q) = %q, want the policy named first", tt.in, err)
			}
		})
	}
}

func TestPolicyStringRoundTrip(t *testing.T) {
	for _, in := range []string{"default", "nodrop,free=end", "miss>5*hit+2,force=7,free=done,checkpoint=1/4,loop=9/99"} {
		p, err := ParsePolicy(in)
		if err != nil {
			t.Fatalf("ParsePolicy(%q): %v", in, err)
		}
		q, err := ParsePolicy(p.String())
		if err != nil {
			t.Fatalf("ParsePolicy(%q): %v", p.String(), err)
		}
		q.Name = p.Name
		if diff := cmp.Diff(p, q); diff != "" {
			t.Errorf("round trip of %q via %q mismatch (-want +got):\n%s", in, p.String(), diff)
		}
	}
	if got, want := DefaultPolicy().String(), "miss>3*hit+3,force=64,free=branches,checkpoint=2/8,loop=20/100"; got != want {
		t.Errorf("DefaultPolicy().String() = %q, want %q", got, want)
	}
}

func TestFreeingString(t *testing.T) {
	got := []string{FreeBranches.String(), FreeLivenessDone.String(), FreeAtEnd.String(), Freeing(9).String()}
	want := []string{"branches", "done", "end", "Freeing(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Freeing.String mismatch (-want +got):\n%s", diff)
	}
}

func TestWantCheckpoint(t *testing.T) {
	p := DefaultPolicy()
	tests := []struct {
		jmps, insns int32
		force, want bool
	}{
		{0, 0, false, false},
		{1, 100, false, false}, // one jump is not enough
		{2, 7, false, false},   // seven insns are not enough
		{2, 8, false, true},    // exactly the kernel's 2 and 8
		{5, 50, false, true},
		{0, 0, true, true}, // force checkpoints always checkpoint
	}
	for _, tt := range tests {
		if got := p.WantCheckpoint(tt.jmps, tt.insns, tt.force); got != tt.want {
			t.Errorf("WantCheckpoint(%d, %d, %v) = %v, want %v", tt.jmps, tt.insns, tt.force, got, tt.want)
		}
	}
}

func TestLoopSuppress(t *testing.T) {
	p := DefaultPolicy()
	tests := []struct {
		jmps, insns int32
		want        bool
	}{
		{0, 0, true},
		{19, 99, true},
		{20, 0, false},  // 20 jumps allow a checkpoint
		{0, 100, false}, // so do 100 insns
		{50, 500, false},
	}
	for _, tt := range tests {
		if got := p.LoopSuppress(tt.jmps, tt.insns); got != tt.want {
			t.Errorf("LoopSuppress(%d, %d) = %v, want %v", tt.jmps, tt.insns, got, tt.want)
		}
	}
}
