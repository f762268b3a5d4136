package states

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// realisticState builds a state like one in the middle of a program with
// bpf-to-bpf calls: nFrames frames, each with nSlots stack slots mixing
// spilled scalars, spilled pointers, MISC, ZERO and untouched slots, and
// registers holding ctx, map values, packet pointers and scalars.
func realisticState(nFrames, nSlots int) *State {
	s := NewState()
	s.InsnIdx = 100
	s.Refs = []Ref{{ID: 7, InsnIdx: 12}}
	s.JmpHistory = []JmpHistEntry{{Idx: 90, PrevIdx: 40}, {Idx: 95, PrevIdx: 93}}
	for fr := 0; fr < nFrames; fr++ {
		f := s.Frames[fr]
		if fr > 0 {
			f = &Frame{}
			s.Frames[fr] = f
			InitFrame(f, int32(20*fr), int32(fr), int32(fr))
			s.CurFrame = int32(fr)
		}
		f.Regs()[1].MarkPtr(PtrToCtx, 0)
		f.Regs()[2].MarkPtr(PtrToMapValue, 0)
		f.Regs()[2].Aux = 1
		f.Regs()[3].MarkPtr(PtrToPacket, 0)
		f.Regs()[3].Range = 14
		f.Regs()[3].ID = 2
		f.Regs()[4].MarkConst(42)
		f.Regs()[5].MarkUnknown(false)
		f.Regs()[6].MarkUnknown(false)
		f.Regs()[6].Scalar = smallRange(0, 255, 0xff)
		f.Regs()[6].SetPrecise(true)
		f.Regs()[7].MarkPtr(PtrToStack, 0)
		f.Regs()[7].Off = -16
		f.Regs()[7].SetFrameNo(fr)
		f.GrowStack(nSlots * SlotSize)
		for spi := range f.NumSlots() {
			sl := f.Slot(spi)
			switch spi % 4 {
			case 0:
				sl.Types = [SlotSize]SlotType{StackSpill, StackSpill, StackSpill, StackSpill, StackSpill, StackSpill, StackSpill, StackSpill}
				sl.Spilled.MarkConst(uint64(spi))
			case 1:
				sl.Types = [SlotSize]SlotType{StackMisc, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc}
			case 2:
				sl.Types = [SlotSize]SlotType{StackZero, StackZero, StackZero, StackZero, StackZero, StackZero, StackZero, StackZero}
			case 3:
				// left untouched (INVALID)
			}
		}
	}
	return s
}

func TestNewState(t *testing.T) {
	s := NewState()
	want := &State{Branches: 1}
	f := newFrame()
	f.stack, f.CallSite = []Slot{}, MainCallSite
	for i := range NumRegs {
		f.Regs()[i].MarkNotInit()
	}
	f.Regs()[RegFP] = Reg{Scalar: ConstScalar(0), Type: PtrToStack}
	want.Frames[0] = f
	s.Frames[0].stack = []Slot{} // nil vs empty is not a difference here
	if diff := cmp.Diff(want, s, allowFrame); diff != "" {
		t.Errorf("NewState mismatch (-want +got):\n%s", diff)
	}
	if s.Cur() != s.Frames[0] {
		t.Errorf("Cur() is not frame 0")
	}
}

func TestCopyFromIsDeepAndIndependent(t *testing.T) {
	src := realisticState(3, 8)
	dst := &State{}
	dst.CopyFrom(src)
	if diff := cmp.Diff(src, dst, allowFrame); diff != "" {
		t.Fatalf("copy differs from source (-src +dst):\n%s", diff)
	}
	keep := &State{}
	keep.CopyFrom(src) // a second copy, as the reference for src

	// Mutate every part of the copy: the source must not move.
	dst.Frames[0].Regs()[4].MarkConst(7)
	dst.Frames[2].Regs()[1].MarkNotInit()
	dst.Frames[1].stack[0].Types[3] = StackMisc
	dst.Frames[1].stack[0].Spilled.MarkUnknown(true)
	dst.Frames[2].GrowStack(MaxStack)
	dst.Refs[0].ID = 99
	dst.JmpHistory[1].Idx = 1
	dst.InsnIdx = 5
	if diff := cmp.Diff(keep, src, allowFrame); diff != "" {
		t.Errorf("mutating the copy changed the source (-before +after):\n%s", diff)
	}
	for i := 0; i <= int(src.CurFrame); i++ {
		if dst.Frames[i] == src.Frames[i] {
			t.Errorf("frame %d shared between copy and source", i)
		}
	}
}

func TestCopyFromReusesMemory(t *testing.T) {
	src := realisticState(3, 64)
	dst := &State{}
	dst.CopyFrom(src)
	frames := dst.Frames
	stack0 := &dst.Frames[0].stack[0]
	allocs := testing.AllocsPerRun(20, func() { dst.CopyFrom(src) })
	if allocs != 0 {
		t.Errorf("CopyFrom into a large enough state allocated %v times, want 0", allocs)
	}
	if dst.Frames != frames || &dst.Frames[0].stack[0] != stack0 {
		t.Errorf("CopyFrom replaced the destination's frames or stack")
	}
}

func TestCopyFromDropsExtraFrames(t *testing.T) {
	deep := realisticState(3, 4)
	shallow := realisticState(1, 2)
	deep.CopyFrom(shallow)
	if diff := cmp.Diff(shallow, deep, allowFrame); diff != "" {
		t.Errorf("copy of a shallower state mismatch (-want +got):\n%s", diff)
	}
	for i := 1; i < MaxCallFrames; i++ {
		if deep.Frames[i] != nil {
			t.Errorf("frame %d kept after copying a 1-frame state", i)
		}
	}
	deep.CopyFrom(deep) // self copy is a no-op
	if diff := cmp.Diff(shallow, deep, allowFrame); diff != "" {
		t.Errorf("self copy changed the state (-want +got):\n%s", diff)
	}
}

// precision lists the precision of r0..r9 and of every spilled scalar of
// every frame, as a string per frame ("P" precise, "i" imprecise, "-" not
// a scalar).
func precision(s *State) []string {
	var out []string
	for i := 0; i <= int(s.CurFrame); i++ {
		f := s.Frames[i]
		var b []byte
		mark := func(r *Reg) {
			switch {
			case r.Type != ScalarValue:
				b = append(b, '-')
			case r.Precise():
				b = append(b, 'P')
			default:
				b = append(b, 'i')
			}
		}
		for j := 0; j < RegFP; j++ {
			mark(&f.Regs()[j])
		}
		b = append(b, '|')
		for j := range f.NumSlots() {
			if f.Slot(j).IsSpilledReg() {
				mark(&f.Slot(j).Spilled)
			}
		}
		out = append(out, string(b))
	}
	return out
}

func TestMarkAllScalars(t *testing.T) {
	parent := realisticState(1, 4)
	s := realisticState(2, 4)
	s.Parent = parent

	s.MarkAllScalarsPrecise()
	want := []string{"----PPP---|P", "----PPP---|P"}
	if diff := cmp.Diff(want, precision(s)); diff != "" {
		t.Errorf("precise: state mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:1], precision(parent)); diff != "" {
		t.Errorf("precise: parent mismatch (-want +got):\n%s", diff)
	}

	s.MarkAllScalarsImprecise()
	want = []string{"----iii---|i", "----iii---|i"}
	if diff := cmp.Diff(want, precision(s)); diff != "" {
		t.Errorf("imprecise: state mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"----PPP---|P"}, precision(parent)); diff != "" {
		t.Errorf("imprecise must not touch the parent (-want +got):\n%s", diff)
	}
}

func TestFrameInsnIdxAndCallsites(t *testing.T) {
	s := realisticState(3, 0)
	got := []int{s.FrameInsnIdx(0), s.FrameInsnIdx(1), s.FrameInsnIdx(2)}
	if diff := cmp.Diff([]int{20, 40, 100}, got); diff != "" {
		t.Errorf("FrameInsnIdx mismatch (-want +got):\n%s", diff)
	}
	o := realisticState(3, 0)
	if !s.SameCallsites(o) {
		t.Errorf("SameCallsites = false for equal chains")
	}
	o.Frames[1].CallSite = 21
	if s.SameCallsites(o) {
		t.Errorf("SameCallsites = true for different call sites")
	}
	if s.SameCallsites(realisticState(2, 0)) {
		t.Errorf("SameCallsites = true for different depths")
	}
}

func TestClean(t *testing.T) {
	s := realisticState(2, 4)
	var calls [][2]int
	env := &EqualEnv{
		// Frame 0 waits at call insn 20: r6 and r7 live there. The top
		// frame at insn 100: r1 only.
		LiveRegs: func(insn int) uint16 {
			calls = append(calls, [2]int{insn, -1})
			if insn == 20 {
				return 1<<6 | 1<<7
			}
			return 1 << 1
		},
		// Only slot 0 of frame 1 stays alive.
		AliveSlots: func(frame, insn int) uint64 {
			if frame == 1 {
				return 1
			}
			return 0
		},
	}
	s.Clean(env)
	if !s.Cleaned {
		t.Errorf("Cleaned not set")
	}
	var p Printer
	got := []string{string(p.AppendFrame(nil, s, 0)), string(p.AppendFrame(nil, s, 1))}
	want := []string{
		" R6=Pscalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff)) R7=fp-16 R10=fp0 refs=7",
		" frame1: R1=ctx() R10=fp0 fp-8=0 refs=7",
	}
	if diff := cmp.Diff(want, got, allowFrame); diff != "" {
		t.Errorf("cleaned state mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]int{{20, -1}, {100, -1}}, calls); diff != "" {
		t.Errorf("liveness queried at the wrong instructions (-want +got):\n%s", diff)
	}

	// Without liveness inputs nothing is dead.
	s = realisticState(1, 4)
	before := s.String()
	s.Clean(&EqualEnv{})
	if got := s.String(); got != before {
		t.Errorf("Clean without liveness changed the state:\n got %s\nwant %s", got, before)
	}
}

// TestChainKey: states of one call chain get one key, whatever else they
// hold, and the chains of a program with many call sites and depths (each
// site 1..12 at each of four depths, 22k chains) get distinct keys, so
// that a bucket walk passes over other chains' states without reading
// them.
func TestChainKey(t *testing.T) {
	chainOf := func(sites []int32) *State {
		s := NewState()
		for i, c := range sites {
			f := &Frame{}
			InitFrame(f, c, int32(i+1), int32(i+1))
			s.Frames[i+1] = f
		}
		s.CurFrame = int32(len(sites))
		return s
	}
	seen := map[uint64][]int32{}
	var walk func(sites []int32)
	walk = func(sites []int32) {
		s := chainOf(sites)
		k := s.ChainKey()
		other := chainOf(sites)
		other.InsnIdx, other.Frames[other.CurFrame].Regs()[3] = 77, Reg{Type: ScalarValue}
		if other.ChainKey() != k {
			t.Fatalf("chain %v: two states, two keys", sites)
		}
		if prev, ok := seen[k]; ok {
			t.Fatalf("chains %v and %v share key %#x", prev, sites, k)
		}
		seen[k] = slices.Clone(sites)
		if len(sites) == 4 {
			return
		}
		for c := int32(1); c <= 12; c++ {
			walk(append(sites, c))
		}
	}
	walk(nil)
	if len(seen) != 1+12+144+1728+20736 {
		t.Fatalf("%d chains walked", len(seen))
	}
}
