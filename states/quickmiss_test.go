package states

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// quickSlot is a slot for the quick-miss tests: a 64-bit spill of a
// constant (precise or not), of a range, a pointer, or plain data.
func quickSlot(r *rand.Rand) Slot {
	switch r.IntN(6) {
	case 0:
		return slotOfKinds(StackMisc)
	case 1:
		s := slotOfKinds(StackSpill)
		s.Spilled.MarkConst(uint64(r.IntN(3)))
		s.Spilled.Scalar = urange(0, uint64(r.IntN(4)))
		s.Spilled.SetPrecise(r.IntN(2) == 0)
		return s
	case 2:
		s := slotOfKinds(StackSpill)
		s.Spilled.MarkPtr(PtrToCtx, 0)
		return s
	case 3:
		return slotOfKinds(StackSpill, StackMisc)
	default:
		s := slotOfKinds(StackSpill)
		s.Spilled.MarkConst(uint64(r.IntN(3)))
		s.Spilled.SetPrecise(r.IntN(3) != 0)
		return s
	}
}

// quickState is a state of one or two frames, each with three slots drawn
// by quickSlot.
func quickState(r *rand.Rand) *State {
	s := NewState()
	if r.IntN(4) == 0 {
		f := &Frame{}
		InitFrame(f, 20, 1, 1)
		s.Frames[1], s.CurFrame = f, 1
	}
	for i := 0; i <= int(s.CurFrame); i++ {
		s.Frames[i].stack = []Slot{quickSlot(r), quickSlot(r), quickSlot(r)}
	}
	return s
}

// TestQuickMissNeverContradicts: an answer UpdateQuickMiss leaves after a
// failed comparison never fails a comparison that StatesEqual would pass,
// whatever the mode, the current state and the precision marks set on
// the stored state after the answer was taken (marks only ever grow).
// Random sealed checkpoints are compared with a run of random states, as
// a bucket walk compares one checkpoint with each arrival.
func TestQuickMissNeverContradicts(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 1))
	modes := []ExactMode{NotExact, RangeWithin, Exact}
	answered, failed := 0, 0
	for range 3000 {
		old := quickState(r)
		old.Seal()
		var e EqualEnv
		e.LoopUnreadSafe = r.IntN(2) == 0
		var q QuickMiss
		for range 20 {
			cur := quickState(r)
			mode := modes[r.IntN(len(modes))]
			quick := q.Fails(cur, mode)
			equal := e.StatesEqual(old, cur, mode)
			if quick && equal {
				t.Fatalf("quick miss %+v fails a comparison StatesEqual passes (mode %v)", q, mode)
			}
			if quick {
				failed++
			}
			if !equal && !q.Valid() {
				e.UpdateQuickMiss(&q, old)
				if q.Valid() {
					answered++
				}
			}
			if r.IntN(8) == 0 {
				// A precision mark propagated into the checkpoint later.
				f := old.Frames[r.IntN(int(old.CurFrame)+1)]
				spi := r.IntN(f.NumSlots())
				if s := f.Slot(spi); s.Spilled.Type == ScalarValue {
					f.SetSlotPrecise(spi, s)
				}
			}
		}
	}
	if answered == 0 || failed == 0 {
		t.Fatalf("the test never exercised an answer: %d answers, %d quick misses", answered, failed)
	}
}

// TestQuickMiss: what an answer decides, case by case.
func TestQuickMiss(t *testing.T) {
	spill := func(v uint64, precise bool) Slot {
		s := slotOfKinds(StackSpill)
		s.Spilled.MarkConst(v)
		s.Spilled.SetPrecise(precise)
		return s
	}
	stateWith := func(slots ...Slot) *State {
		s := NewState()
		s.Frames[0].stack = slots
		return s
	}
	tests := []struct {
		name    string
		old     Slot
		cur     *State
		mode    ExactMode
		answer  bool // UpdateQuickMiss leaves an answer after the miss
		failsOn bool // the answer fails cur
	}{
		{"another constant", spill(1, true), stateWith(spill(2, false)), NotExact, true, true},
		{"the same constant", spill(1, true), stateWith(spill(1, false)), NotExact, true, false},
		{"imprecise: not in NotExact", spill(1, false), stateWith(spill(2, false)), NotExact, true, false},
		{"imprecise: in RangeWithin", spill(1, false), stateWith(spill(2, false)), RangeWithin, true, true},
		{"a range in cur", spill(1, true), stateWith(func() Slot { s := spill(0, false); s.Spilled.Scalar = urange(0, 9); return s }()), Exact, true, false},
		{"plain data in cur", spill(1, true), stateWith(slotOfKinds(StackMisc)), NotExact, true, false},
		{"slot past cur's stack", spill(1, true), NewState(), NotExact, true, false},
		{"old holds a range: no answer", func() Slot { s := spill(0, true); s.Spilled.Scalar = urange(0, 9); return s }(), stateWith(spill(20, false)), NotExact, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := stateWith(tc.old)
			old.Seal()
			// The hint a failed comparison left at the slot; an arrival
			// failing there leaves the answer.
			old.Frames[0].sum.hint = 1
			e := EqualEnv{LoopUnreadSafe: true}
			if e.StatesEqual(old, stateWith(spill(99, false)), RangeWithin) {
				t.Fatal("the miss matched")
			}
			var q QuickMiss
			e.UpdateQuickMiss(&q, old)
			got := []bool{q.Valid(), q.Fails(tc.cur, tc.mode)}
			if diff := cmp.Diff([]bool{tc.answer, tc.failsOn}, got); diff != "" {
				t.Errorf("(answer, fails) (-want +got):\n%s", diff)
			}
			if got[1] && e.StatesEqual(old, tc.cur, tc.mode) {
				t.Error("the answer fails a comparison StatesEqual passes")
			}
		})
	}
}

// TestQuickProbeWalk: a probe kept over a walk answers each entry as a
// probe made for that entry alone does, whatever slot, frame, validity
// and precision the entries' answers name in turn (the probe keeps cur's
// constant of the last slot asked).
func TestQuickProbeWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	modes := []ExactMode{NotExact, RangeWithin, Exact}
	fails := 0
	for range 500 {
		cur := quickState(r)
		probe := NewQuickProbe(cur)
		for range 40 {
			q := QuickMiss{val: uint64(r.IntN(3)), frame: int8(r.IntN(3)), spi: int8(r.IntN(4)),
				valid: r.IntN(4) != 0, precise: r.IntN(2) == 0, named: true}
			mode := modes[r.IntN(len(modes))]
			alone := NewQuickProbe(cur)
			want := alone.Fails(&q, mode)
			if got := probe.Fails(&q, mode); got != want {
				t.Fatalf("probe over a walk says %v for %+v in mode %v, a probe of its own %v", got, q, mode, want)
			}
			if want {
				fails++
			}
		}
	}
	if fails == 0 {
		t.Fatal("no answer failed a state: the test proves nothing")
	}
}
