package states

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// randomStack returns a state whose frame 0 has n slots drawn by
// randomSlot, about half of them never written.
func randomStack(r *rand.Rand, n int) *State {
	s := NewState()
	f := s.Frames[0]
	f.GrowStack(n * SlotSize)
	for spi := range n {
		if r.IntN(2) == 0 {
			*f.Slot(spi) = randomSlot(r)
		}
	}
	// About half the registers written; a NotInit one with a non-canonical
	// field must be held too.
	for i := range RegFP {
		switch r.IntN(4) {
		case 0:
			f.Regs()[i].MarkConst(r.Uint64())
		case 1:
			f.Regs()[i].MarkPtr(PtrToCtx, 0)
		case 2:
			f.Regs()[i] = Reg{}
		}
	}
	return s
}

// regsOf returns every register of every frame of s as Reg reads them.
func regsOf(s *State) [][NumRegs]Reg {
	var out [][NumRegs]Reg
	for i := 0; i <= int(s.CurFrame); i++ {
		var regs [NumRegs]Reg
		for r := range regs {
			regs[r] = *s.Frames[i].Reg(r)
		}
		out = append(out, regs)
	}
	return out
}

// slotsOf returns every slot of every frame of s as Slot reads them, in
// index order: the stack as any reader sees it.
func slotsOf(s *State) [][]Slot {
	var out [][]Slot
	for i := 0; i <= int(s.CurFrame); i++ {
		f := s.Frames[i]
		slots := make([]Slot, f.NumSlots())
		for spi := range slots {
			slots[spi] = *f.Slot(spi)
		}
		out = append(out, slots)
	}
	return out
}

// TestPackedReadsAsDense: a packed copy reads slot for slot as its source
// (a never-written slot as StackInvalid), holds only the written slots,
// prints the same, and a copy of it is dense again and equal to the
// source.
func TestPackedReadsAsDense(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var p Pool
	for n := range 200 {
		src := randomStack(r, n%65)
		if n%3 == 0 {
			src = realisticState(3, n%65)
		}
		packed := p.ClonePacked(src)
		if diff := cmp.Diff(slotsOf(src), slotsOf(packed), allowReg); diff != "" {
			t.Fatalf("packed copy reads differently (-src +packed):\n%s", diff)
		}
		if diff := cmp.Diff(regsOf(src), regsOf(packed), allowReg); diff != "" {
			t.Fatalf("packed copy's registers read differently (-src +packed):\n%s", diff)
		}
		if got, want := packed.String(), src.String(); got != want {
			t.Fatalf("packed copy prints %q, source %q", got, want)
		}
		for i := 0; i <= int(src.CurFrame); i++ {
			written := 0
			for spi := range src.Frames[i].NumSlots() {
				if src.Frames[i].Slot(spi).IsValid() {
					written++
				}
			}
			if f := packed.Frames[i]; !f.packed || f.HeldSlots() != written {
				t.Fatalf("frame %d: packed=%v holding %d slots, want packed holding the %d written", i, f.packed, f.HeldSlots(), written)
			}
			held := 0
			for r := range NumRegs {
				reg := *src.Frames[i].Reg(r)
				if r < RegFP && reg != notInitRegs[0] || r == RegFP && reg != framePointers[src.Frames[i].FrameNo] {
					held++
				}
			}
			if f := packed.Frames[i]; f.HeldRegs() != held || f.Regs() != nil {
				t.Fatalf("frame %d: holding %d registers (array %v), want the %d not canonical and no array", i, f.HeldRegs(), f.Regs() != nil, held)
			}
		}
		dense := &State{}
		dense.CopyFrom(packed)
		if diff := cmp.Diff(src, dense, allowFrame); diff != "" {
			t.Fatalf("dense copy of a packed state differs from the source (-src +copy):\n%s", diff)
		}
		again := p.ClonePacked(packed)
		if diff := cmp.Diff(slotsOf(src), slotsOf(again), allowReg); diff != "" {
			t.Fatalf("packed copy of a packed state reads differently (-src +copy):\n%s", diff)
		}
		p.Put(packed)
		p.Put(again)
	}
	if !AbsentSlotIntact() || !AbsentRegIntact() {
		t.Errorf("reading packed frames wrote the shared never-written slot or left-out register")
	}
}

// TestPackedComparesAsDense: a packed checkpoint, sealed or not, answers
// every comparison as its dense source does, as old and as cur, in every
// mode; and cleaning it leaves what cleaning the dense one leaves.
func TestPackedComparesAsDense(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var p Pool
	counts := map[bool]int{}
	for n := 0; n < 3000; n++ {
		nOld := r.IntN(12)
		old := randomStack(r, nOld)
		cur := NewState()
		nCur := r.IntN(12)
		cur.Frames[0].GrowStack(nCur * SlotSize)
		for spi := range nCur {
			s := randomSlot(r)
			if spi < nOld && r.IntN(3) > 0 {
				s = *old.Frames[0].Slot(spi)
			}
			*cur.Frames[0].Slot(spi) = s
		}
		for i := range RegFP {
			if r.IntN(6) > 0 {
				cur.Frames[0].Regs()[i] = old.Frames[0].Regs()[i]
			}
		}
		for _, unpriv := range []bool{false, true} {
			for _, mode := range []ExactMode{NotExact, RangeWithin, Exact} {
				env := EqualEnv{Unprivileged: unpriv}
				want := env.StatesEqual(old, cur, mode)
				packed := p.ClonePacked(old)
				if got := env.StatesEqual(packed, cur, mode); got != want {
					t.Fatalf("unprivileged=%v mode %v: packed old = %v, dense %v\nold %s\ncur %s", unpriv, mode, got, want, old, cur)
				}
				packed.Seal()
				if got := env.StatesEqual(packed, cur, mode); got != want {
					t.Fatalf("unprivileged=%v mode %v: sealed packed old = %v, dense %v\nold %s\ncur %s", unpriv, mode, got, want, old, cur)
				}
				packedCur := p.ClonePacked(cur)
				if got := env.StatesEqual(old, packedCur, mode); got != want {
					t.Fatalf("unprivileged=%v mode %v: packed cur = %v, dense %v\nold %s\ncur %s", unpriv, mode, got, want, old, cur)
				}
				counts[want]++
				p.Put(packed)
				p.Put(packedCur)
			}
		}
		// Cleaning: the same slots die in both layouts.
		alive, live := r.Uint64(), uint16(r.Uint32())
		clean := &EqualEnv{AliveSlots: func(_, _ int) uint64 { return alive }, LiveRegs: func(int) uint16 { return live }}
		packed := p.ClonePacked(old)
		packed.Seal()
		dense := &State{}
		dense.CopyFrom(old)
		dense.Seal()
		packed.Clean(clean)
		dense.Clean(clean)
		if diff := cmp.Diff(slotsOf(dense), slotsOf(packed), allowReg); diff != "" {
			t.Fatalf("cleaning differs (-dense +packed):\n%s", diff)
		}
		if diff := cmp.Diff(regsOf(dense), regsOf(packed), allowReg); diff != "" {
			t.Fatalf("cleaning registers differs (-dense +packed):\n%s", diff)
		}
		fresh := p.ClonePacked(packed)
		fresh.Seal()
		if diff := cmp.Diff(fresh.Frames[0].sum, packed.Frames[0].sum, allowFrame); diff != "" {
			t.Fatalf("packed summary after Clean differs from a fresh seal (-fresh +cleaned):\n%s", diff)
		}
		p.Put(packed)
		p.Put(fresh)
	}
	if counts[true] < 100 || counts[false] < 100 {
		t.Errorf("answers too one-sided: %v", counts)
	}
	if !AbsentSlotIntact() || !AbsentRegIntact() {
		t.Errorf("comparisons or cleaning wrote the shared never-written slot or left-out register")
	}
}

// TestResume: a resumed branch is a dense copy of the pushed one, in the
// memory of the state whose path ended when it was packed, whatever their
// frame counts.
func TestResume(t *testing.T) {
	var p Pool
	dense := p.Clone(realisticState(2, 8))
	if got := p.Resume(p.Clone(realisticState(1, 4)), dense); got != dense {
		t.Errorf("Resume of a dense state did not return it")
	}
	for _, tt := range []struct{ curFrames, pushedFrames int }{{1, 3}, {3, 1}, {2, 2}} {
		src := realisticState(tt.pushedFrames, 24)
		pushed := p.ClonePacked(src)
		cur := p.Clone(realisticState(tt.curFrames, 40))
		got := p.Resume(cur, pushed)
		if got != cur {
			t.Errorf("Resume of a packed state returned another state than cur")
		}
		// An empty register slice kept for its capacity equals none.
		if diff := cmp.Diff(src, got, allowFrame, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%d frames resumed over %d: differs from the pushed state (-pushed +resumed):\n%s", tt.pushedFrames, tt.curFrames, diff)
		}
		for i := range got.Frames {
			if f := got.Frames[i]; f != nil && f.packed {
				t.Errorf("frame %d of a resumed state is packed", i)
			}
		}
	}
}
