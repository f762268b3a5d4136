package states

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mismatchView is what a profile shows of a Mismatch.
type mismatchView struct {
	Kind     string
	Where    string
	Old, Cur string
}

func mismatchViewOf(m Mismatch, curFrame int) mismatchView {
	var p Printer
	o, c := m.Values(&p)
	return mismatchView{Kind: m.Kind.String(), Where: m.Where(curFrame), Old: o, Cur: c}
}

func TestMismatch(t *testing.T) {
	set := func(s *State, i int, r Reg) { s.Frames[0].Regs()[i] = r }
	preciseUnknown := func() Reg { r := unknown(); r.SetPrecise(true); return r }
	tests := []struct {
		name   string
		edit   func(old, cur *State)
		mode   ExactMode
		unpriv bool
		want   mismatchView
	}{
		{"identical", nil, NotExact, false, mismatchView{Kind: "none"}},
		{"precise range", func(o, c *State) {
			set(o, 3, bounded(0, 255, 0xff, true, 0))
			set(c, 3, bounded(0, 4095, 0xfff, false, 0))
		}, NotExact, false, mismatchView{"range", "R3", "[0,255]", "[0,4095]"}},
		{"imprecise range in a loop", func(o, c *State) {
			set(o, 3, konst(3, false))
			set(c, 3, konst(4, false))
		}, RangeWithin, false, mismatchView{"range", "R3", "3", "4"}},
		{"signed range", func(o, c *State) {
			set(o, 4, konst(0, true))
			r := unknown()
			r.SMin, r.SMax = -5, 5
			set(c, 4, r)
		}, NotExact, false, mismatchView{"range", "R4", "0", "s[-5,5]"}},
		{"known bits", func(o, c *State) {
			set(o, 3, bounded(0, 254, 0xfe, true, 0))
			set(c, 3, bounded(0, 1, 0x1, false, 0))
		}, NotExact, false, mismatchView{"tnum", "R3", "[0,254] var_off=(0x0; 0xfe)", "[0,1] var_off=(0x0; 0x1)"}},
		{"scalar vs pointer", func(o, c *State) {
			set(o, 2, preciseUnknown())
			set(c, 2, ptr(PtrToCtx, 0, nil))
		}, NotExact, false, mismatchView{"type", "R2", "Pscalar()", "ctx()"}},
		{"null-checked vs maybe null", func(o, c *State) {
			set(o, 0, mapValue(1, 0))
			set(c, 0, ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.Aux, r.ID = 1, 4 }))
		}, NotExact, false, mismatchView{"type", "R0", "map_value()", "map_value_or_null(id=4)"}},
		{"map value offset", func(o, c *State) {
			set(o, 6, mapValue(1, 8))
			set(c, 6, mapValue(1, 16))
		}, NotExact, false, mismatchView{"offset", "R6", "map_value(off=8)", "map_value(off=16)"}},
		{"packet range", func(o, c *State) {
			set(o, 3, pkt(0, 20, 0))
			set(c, 3, pkt(0, 14, 0))
		}, NotExact, false, mismatchView{"pkt_range", "R3", "pkt(r=20)", "pkt(r=14)"}},
		{"linked in old, split in cur", func(o, c *State) {
			set(o, 6, bounded(0, 9, 0xf, true, 1))
			set(o, 7, bounded(0, 9, 0xf, true, 1))
			set(c, 6, bounded(0, 9, 0xf, false, 5))
			set(c, 7, bounded(0, 9, 0xf, false, 6))
		}, NotExact, false, mismatchView{"id", "R7", "Pscalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=9,var_off=(0x0; 0xf))", "scalar(id=6,smin=smin32=0,smax=umax=smax32=umax32=9,var_off=(0x0; 0xf))"}},
		{"uninit in a loop", func(o, c *State) {
			set(c, 5, konst(1, false))
		}, RangeWithin, false, mismatchView{"uninit", "R5", "uninit", "1"}},
		{"references", func(o, c *State) { c.Refs = []Ref{{ID: 3}} }, NotExact, false, mismatchView{Kind: "refs"}},
		{"speculative", func(o, c *State) { o.Speculative = true }, NotExact, false, mismatchView{Kind: "speculative"}},
		{"sleepable", func(o, c *State) { c.InSleepable = true }, NotExact, false, mismatchView{Kind: "sleepable"}},
		{"callback depth", func(o, c *State) { o.Frames[0].CallbackDepth = 2 }, NotExact, false, mismatchView{Kind: "call_chain"}},
		{"spilled precise vs misc", func(o, c *State) {
			spillTo(o.Frames[0], 1, konst(5, true))
			slotOf(c.Frames[0], 1, StackMisc)
		}, NotExact, false, mismatchView{"range", "fp-16", "rrrrrrrr 5", "mmmmmmmm"}},
		{"spilled pointer vs misc", func(o, c *State) {
			spillTo(o.Frames[0], 0, ptr(PtrToCtx, 0, nil))
			slotOf(c.Frames[0], 0, StackMisc)
		}, NotExact, false, mismatchView{"spill", "fp-8", "rrrrrrrr ctx()", "mmmmmmmm"}},
		{"spilled pointers differ", func(o, c *State) {
			spillTo(o.Frames[0], 0, stackPtr(-8, 0))
			spillTo(c.Frames[0], 0, stackPtr(-16, 0))
		}, NotExact, false, mismatchView{"offset", "fp-8", "rrrrrrrr fp-8", "rrrrrrrr fp-16"}},
		{"zero vs misc", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackZero)
			slotOf(c.Frames[0], 0, StackMisc)
		}, NotExact, false, mismatchView{"slot", "fp-8", "00000000", "mmmmmmmm"}},
		{"slot cur never allocated", func(o, c *State) {
			slotOf(o.Frames[0], 1, StackZero)
			slotOf(c.Frames[0], 0, StackZero)
		}, NotExact, false, mismatchView{"slot", "fp-16", "00000000", "????????"}},
		{"unprivileged misc vs invalid", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackMisc)
			c.Frames[0].GrowStack(8)
		}, NotExact, true, mismatchView{"slot", "fp-8", "mmmmmmmm", "????????"}},
		{"exact: spilled vs misc", func(o, c *State) {
			spillTo(o.Frames[0], 0, konst(5, false))
			slotOf(c.Frames[0], 0, StackMisc)
		}, Exact, false, mismatchView{"spill", "fp-8", "rrrrrrrr 5", "mmmmmmmm"}},
		{"exact: loop counter", func(o, c *State) {
			set(o, 1, konst(3, false))
			set(c, 1, konst(4, false))
		}, Exact, false, mismatchView{"range", "R1", "3", "4"}},
		{"iterator of another type", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackIter).Spilled.Aux = 7
			slotOf(c.Frames[0], 0, StackIter).Spilled.Aux = 8
		}, NotExact, false, mismatchView{"slot", "fp-8", "iiiiiiii", "iiiiiiii"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, cur := pair(tt.edit)
			env := EqualEnv{Unprivileged: tt.unpriv}
			equal := env.StatesEqual(old, cur, tt.mode)
			m := env.Mismatch(old, cur, tt.mode)
			if equal != (m.Kind == MismatchNone) {
				t.Fatalf("StatesEqual = %v but Mismatch is %v", equal, m.Kind)
			}
			if diff := cmp.Diff(tt.want, mismatchViewOf(m, 0)); diff != "" {
				t.Errorf("Mismatch mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMismatchFrames(t *testing.T) {
	var env EqualEnv
	old := realisticState(3, 8)
	tests := []struct {
		name string
		cur  *State
		want mismatchView
	}{
		{"depth", realisticState(2, 8), mismatchView{Kind: "call_chain"}},
		{"call site", func() *State { s := realisticState(3, 8); s.Frames[1].CallSite++; return s }(), mismatchView{Kind: "call_chain"}},
		{"caller register", func() *State { s := realisticState(3, 8); s.Frames[1].Regs()[6].MarkConst(1000); return s }(),
			mismatchView{"range", "R6 (frame 1)", "[0,255]", "1000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, mismatchViewOf(env.Mismatch(old, tt.cur, NotExact), 2)); diff != "" {
				t.Errorf("Mismatch mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMismatchSealed checks that a sealed checkpoint, whose stack
// StatesEqual walks through its summary, gets the same answer.
func TestMismatchSealed(t *testing.T) {
	var env EqualEnv
	old, cur := realisticState(1, 8), realisticState(1, 8)
	old.Seal()
	if m := env.Mismatch(old, cur, NotExact); m.Kind != MismatchNone {
		t.Fatalf("equal states: Mismatch %v", m.Kind)
	}
	cur.Frames[0].Slot(2).Types = [SlotSize]SlotType{StackZero, StackZero, StackZero, StackZero, StackZero, StackZero, StackZero, StackZero}
	equal := env.StatesEqual(old, cur, NotExact)
	m := env.Mismatch(old, cur, NotExact)
	if equal != (m.Kind == MismatchNone) {
		t.Errorf("StatesEqual = %v but Mismatch is %v at %s", equal, m.Kind, m.Where(0))
	}
}
