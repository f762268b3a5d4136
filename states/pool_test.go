package states

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPoolGetIsFresh(t *testing.T) {
	var p Pool
	s := p.Clone(realisticState(3, 16))
	p.Put(s)
	got := p.Get()
	if got != s {
		t.Errorf("Get after Put did not reuse the state")
	}
	want := NewState()
	want.Frames[0].stack = got.Frames[0].stack // capacity is kept, length 0
	if got.Frames[0].NumSlots() != 0 {
		t.Errorf("recycled frame has a stack of %d slots", got.Frames[0].NumSlots())
	}
	got.Refs, got.JmpHistory = nil, nil // capacity is kept, length 0
	if diff := cmp.Diff(want, got, allowFrame); diff != "" {
		t.Errorf("recycled state is not fresh (-want +got):\n%s", diff)
	}
}

func TestPoolClone(t *testing.T) {
	var p Pool
	src := realisticState(3, 16)
	c := p.Clone(src)
	if diff := cmp.Diff(src, c, allowFrame); diff != "" {
		t.Errorf("Clone mismatch (-src +clone):\n%s", diff)
	}
	c.Frames[2].Regs()[4].MarkConst(1)
	if src.Frames[2].Regs()[4] == c.Frames[2].Regs()[4] {
		t.Errorf("clone shares registers with its source")
	}
}

func TestPoolSteadyStateAllocs(t *testing.T) {
	var p Pool
	src := realisticState(3, 64)
	p.Put(p.Clone(src))
	allocs := testing.AllocsPerRun(20, func() {
		p.Put(p.Clone(src))
	})
	if allocs != 0 {
		t.Errorf("Clone+Put allocated %v times, want 0", allocs)
	}
	cur := p.Clone(src)
	p.Put(p.ClonePacked(src))
	allocs = testing.AllocsPerRun(20, func() {
		cur = p.Resume(cur, p.ClonePacked(src))
	})
	if allocs != 0 {
		t.Errorf("ClonePacked+Resume allocated %v times, want 0", allocs)
	}
	f := p.Frame()
	p.PutFrame(f)
	if p.Frame() != f {
		t.Errorf("Frame after PutFrame did not reuse the frame")
	}
	p.Put(nil) // harmless
}
