package states

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// allowReg lets cmp compare registers with their packed frame number and
// precision mark.
var allowReg = cmp.AllowUnexported(Reg{})

// allowFrame lets cmp compare frames with their unexported stack summary.
var allowFrame = cmp.Options{cmp.AllowUnexported(Frame{}, stackSummary{}), allowReg}

// slotOfKinds returns a slot whose bytes have the given kinds.
func slotOfKinds(kinds ...SlotType) Slot {
	var s Slot
	for i := range s.Types {
		s.Types[i] = kinds[i%len(kinds)]
	}
	return s
}

func TestSealSummary(t *testing.T) {
	spilled := slotOfKinds(StackSpill)
	spilled.Spilled.MarkConst(3)
	precise := spilled
	precise.Spilled.SetPrecise(true)
	pointer := slotOfKinds(StackSpill)
	pointer.Spilled = mapValue(1, 0)
	sub := slotOfKinds(StackMisc, StackMisc, StackMisc, StackMisc, StackSpill)
	sub.Spilled.MarkConst(3)
	tests := []struct {
		name                        string
		stack                       []Slot
		invalid, misc, plain, loose uint64
		spills                      uint64
	}{
		{"empty stack", nil, 0, 0, 0, 0, 0},
		{"untouched slots", []Slot{{}, {}}, 0b11, 0b11, 0b11, 0, 0},
		{"all MISC", []Slot{slotOfKinds(StackMisc)}, 0, 0b1, 0b1, 0, 0},
		{"MISC over INVALID", []Slot{slotOfKinds(StackInvalid, StackMisc)}, 0, 0b1, 0b1, 0, 0},
		{"ZERO is read", []Slot{slotOfKinds(StackZero), {}}, 0b10, 0b10, 0b11, 0, 0},
		{"MISC and ZERO", []Slot{slotOfKinds(StackMisc, StackZero)}, 0, 0, 0b1, 0, 0},
		{"spill", []Slot{{}, spilled, slotOfKinds(StackMisc)}, 0b001, 0b101, 0b101, 0b010, 0b010},
		{"precise and pointer spills", []Slot{precise, pointer}, 0, 0, 0, 0, 0b11},
		// The last byte is MISC: no register is spilled whole.
		{"sub-register spill", []Slot{sub}, 0, 0, 0, 0, 0},
		{"dynptr", []Slot{slotOfKinds(StackDynptr)}, 0, 0, 0, 0, 0},
		{"full stack", make([]Slot, maxSlots), ^uint64(0), ^uint64(0), ^uint64(0), 0, 0},
	}
	for _, tt := range tests {
		s := NewState()
		s.Frames[0].stack = tt.stack
		s.Seal()
		var words []uint64
		for _, sl := range tt.stack {
			var b [SlotSize]byte
			for i, k := range sl.Types {
				b[i] = byte(k)
			}
			words = append(words, binary.LittleEndian.Uint64(b[:]))
		}
		// NewState's only initialised register is the frame pointer.
		want := stackSummary{words: words, invalid: tt.invalid, misc: tt.misc, plain: tt.plain, looseSlots: tt.loose,
			inited: 1 << RegFP, regsValid: true, valid: true}
		if diff := cmp.Diff(want, s.Frames[0].sum, allowFrame, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: summary mismatch (-want +got):\n%s", tt.name, diff)
		}
		if got := s.Frames[0].sealedSpills(); got != tt.spills {
			t.Errorf("%s: sealedSpills = %#b, want %#b", tt.name, got, tt.spills)
		}
	}
}

// TestSealRegisters checks the summary's initialised and loose registers:
// set by Seal, narrowed by Clean as it resets dead registers and by
// precision marks, and what regsSafe relies on to skip a checkpoint's
// NotInit registers and not to read its loose ones.
func TestSealRegisters(t *testing.T) {
	s := NewState()
	f := s.Frames[0]
	f.Regs()[1].MarkConst(1)
	f.Regs()[6].MarkConst(6)
	f.Regs()[7] = konst(7, true)
	f.Regs()[8] = mapValue(1, 0)
	s.Seal()
	if got, want := f.sum.inited, uint16(1<<1|1<<6|1<<7|1<<8|1<<RegFP); !f.sum.regsValid || got != want {
		t.Fatalf("after Seal: inited %#x (valid %v), want %#x", got, f.sum.regsValid, want)
	}
	if got, want := f.sum.looseRegs, uint16(1<<1|1<<6); got != want {
		t.Fatalf("after Seal: loose %#x, want %#x", got, want)
	}
	s.Clean(&EqualEnv{LiveRegs: func(int) uint16 { return 1<<6 | 1<<7 }})
	if got, want := f.sum.inited, uint16(1<<6|1<<7|1<<RegFP); got != want {
		t.Errorf("after Clean: inited %#x, want %#x", got, want)
	}
	if got, want := f.sum.looseRegs, uint16(1<<6); got != want {
		t.Errorf("after Clean: loose %#x, want %#x", got, want)
	}
	f.SetRegPrecise(6, f.Reg(6))
	if f.sum.looseRegs != 0 || !f.Reg(6).Precise() {
		t.Errorf("after SetRegPrecise: loose %#x, r6 precise %v", f.sum.looseRegs, f.Reg(6).Precise())
	}
	// A stack too large for the slot summary still gets the registers.
	big := NewState()
	big.Frames[0].stack = make([]Slot, maxSlots+1)
	big.Seal()
	if fb := big.Frames[0]; fb.sum.valid || !fb.sum.regsValid || fb.sum.inited != 1<<RegFP {
		t.Errorf("large stack: valid %v regsValid %v inited %#x", fb.sum.valid, fb.sum.regsValid, fb.sum.inited)
	}
}

func TestSealDroppedByCopyAndReset(t *testing.T) {
	src := realisticState(2, 8)
	src.Seal()
	var p Pool
	clone := p.Clone(src)
	dst := &State{}
	dst.CopyFrom(src)
	for i := 0; i <= int(src.CurFrame); i++ {
		if !src.Frames[i].sum.valid {
			t.Errorf("frame %d of the sealed state has no summary", i)
		}
		if clone.Frames[i].sum.valid || dst.Frames[i].sum.valid || clone.Frames[i].sum.regsValid || dst.Frames[i].sum.regsValid {
			t.Errorf("frame %d: a copy of a sealed state is sealed", i)
		}
	}
	p.Put(src)
	if f := p.Frame(); f.sum.valid || f.sum.regsValid {
		t.Errorf("a recycled frame keeps its summary")
	}
}

func TestCleanReseals(t *testing.T) {
	s := realisticState(1, 8)
	s.Seal()
	// Slot 0 holds a spill, slot 2 ZERO: after cleaning them, both read
	// as untouched.
	s.Clean(&EqualEnv{AliveSlots: func(_, _ int) uint64 { return ^uint64(0b101) }})
	sum := s.Frames[0].sum
	if !sum.valid || sum.invalid&0b101 != 0b101 || sum.misc&0b101 != 0b101 {
		t.Errorf("summary after Clean = %+v, want slots 0 and 2 unread", sum)
	}
	// The summary kept up to date is the one sealing afresh computes.
	fresh := &State{}
	fresh.CopyFrom(s)
	fresh.Seal()
	if diff := cmp.Diff(fresh.Frames[0].sum, sum, allowFrame); diff != "" {
		t.Errorf("summary after Clean differs from a fresh seal (-fresh +cleaned):\n%s", diff)
	}
	// An unsealed state stays unsealed.
	u := realisticState(1, 8)
	u.Clean(&EqualEnv{AliveSlots: func(_, _ int) uint64 { return 0 }})
	if u.Frames[0].sum.valid {
		t.Errorf("Clean sealed a state that was not sealed")
	}
}

// randomSlot returns a slot of a kind stacks commonly hold, with spilled
// registers drawn from a few values so that pairs often match.
func randomSlot(r *rand.Rand) Slot {
	const (
		I, S, M, Z = StackInvalid, StackSpill, StackMisc, StackZero
	)
	kinds := [][SlotSize]SlotType{
		{I, I, I, I, I, I, I, I}, {M, M, M, M, M, M, M, M}, {Z, Z, Z, Z, Z, Z, Z, Z},
		{S, S, S, S, S, S, S, S}, {S, S, S, S, S, S, S, S},
		{I, I, I, I, M, M, M, M}, {M, M, M, M, Z, Z, Z, Z}, {I, I, Z, Z, Z, Z, M, M},
		{M, M, M, M, S, S, S, S}, {I, I, I, I, S, S, S, S},
		{StackDynptr, StackDynptr, StackDynptr, StackDynptr, StackDynptr, StackDynptr, StackDynptr, StackDynptr},
	}
	s := Slot{Types: kinds[r.IntN(len(kinds))]}
	switch {
	case s.Types[lastByte] == StackSpill && r.IntN(4) == 0:
		s.Spilled = mapValue(uint32(r.IntN(2)), 0)
	case s.Types[lastByte] == StackSpill && s.Types[0] == StackSpill:
		s.Spilled = bounded(0, uint64(r.IntN(3)), 0xff, r.IntN(2) == 0, uint32(r.IntN(2)))
	case s.Types[lastByte] == StackSpill:
		s.Spilled = konst(uint64(r.IntN(2)), r.IntN(2) == 0)
	case s.Types[0] == StackDynptr:
		s.Spilled.Aux, s.Spilled.Off = uint32(r.IntN(2)), 1
	}
	return s
}

// randomReg returns a register of a kind checkpoints commonly hold.
func randomReg(r *rand.Rand) Reg {
	switch r.IntN(5) {
	case 0:
		return absentReg
	case 1:
		return mapValue(uint32(r.IntN(2)), 0)
	default:
		return bounded(0, uint64(r.IntN(3)), 0xff, r.IntN(2) == 0, 0)
	}
}

// TestSealedStackSafeAgrees checks the sealed comparison against the
// byte walk on random stacks and registers, in NotExact and RangeWithin
// modes, with the hints another comparison left: the summary must only
// skip work, never change an answer, also once precision marks reach the
// sealed checkpoint.
func TestSealedStackSafeAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[bool]int{}
	for n := 0; n < 4000; n++ {
		old, cur := NewState(), NewState()
		nOld, nCur := r.IntN(10), r.IntN(10)
		for i := 0; i < nOld; i++ {
			old.Frames[0].stack = append(old.Frames[0].stack, randomSlot(r))
		}
		for i := 0; i < nCur; i++ {
			s := randomSlot(r)
			if i < nOld && r.IntN(3) > 0 {
				s = old.Frames[0].stack[i]
			}
			cur.Frames[0].stack = append(cur.Frames[0].stack, s)
		}
		for i := 1; i <= 3; i++ {
			old.Frames[0].Regs()[i] = randomReg(r)
			cur.Frames[0].Regs()[i] = old.Frames[0].Regs()[i]
			if r.IntN(3) == 0 {
				cur.Frames[0].Regs()[i] = randomReg(r)
			}
		}
		// Precision marks a stored checkpoint gets after it was sealed.
		sealed := &State{}
		sealed.CopyFrom(old)
		sealed.Seal()
		if i := 1 + r.IntN(3); r.IntN(3) == 0 && old.Frames[0].Reg(i).Type == ScalarValue {
			old.Frames[0].Reg(i).SetPrecise(true)
			sealed.Frames[0].SetRegPrecise(i, sealed.Frames[0].Reg(i))
		}
		if nOld > 0 && r.IntN(3) == 0 {
			if spi := r.IntN(nOld); old.Frames[0].Slot(spi).IsSpilledScalarReg() {
				old.Frames[0].Slot(spi).Spilled.SetPrecise(true)
				sealed.Frames[0].SetSlotPrecise(spi, sealed.Frames[0].Slot(spi))
			}
		}
		// Another current state compared first may leave hints (a
		// slot, a register) in the sealed copy, which the next
		// comparisons test first.
		other := NewState()
		for i := r.IntN(10); i > 0; i-- {
			other.Frames[0].stack = append(other.Frames[0].stack, randomSlot(r))
		}
		for i := 1; i <= 3; i++ {
			other.Frames[0].Regs()[i] = randomReg(r)
		}
		for _, mode := range []ExactMode{NotExact, RangeWithin} {
			for _, unpriv := range []bool{false, true} {
				for _, unreadSafe := range []bool{false, true} {
					env := EqualEnv{Unprivileged: unpriv, LoopUnreadSafe: unreadSafe}
					env.StatesEqual(sealed, other, mode)
					want := env.StatesEqual(old, cur, mode)
					if got := env.StatesEqual(sealed, cur, mode); got != want {
						t.Fatalf("mode %d, unprivileged=%v, LoopUnreadSafe=%v: sealed StatesEqual = %v, byte walk %v\nold %s\ncur %s",
							mode, unpriv, unreadSafe, got, want, old, cur)
					}
					counts[want]++
				}
			}
		}
	}
	// Both answers must have been exercised, or the test proves nothing.
	if counts[true] < 100 || counts[false] < 100 {
		t.Errorf("answers too one-sided: %v", counts)
	}
}

// TestStatesEqualHint: a comparison that failed at a slot of a sealed
// checkpoint leaves a hint there; the next comparison tests that slot
// first and must not compare it a second time: a cur scalar without id is
// paired with a fresh temporary id at each comparison, so a slot whose old
// scalar carries an id would then fail against itself.
func TestStatesEqualHint(t *testing.T) {
	spill := func(v uint64, id uint32, precise bool) Slot {
		s := slotOfKinds(StackSpill)
		s.Spilled.MarkConst(v)
		s.Spilled.ID = id
		s.Spilled.SetPrecise(precise)
		return s
	}
	old := NewState()
	old.Frames[0].stack = []Slot{slotOfKinds(StackMisc), slotOfKinds(StackMisc), spill(0, 7, true)}
	old.Frames[0].stack[2].Spilled.Scalar = urange(0, 100)
	old.Seal()
	curWith := func(v uint64) *State {
		cur := NewState()
		cur.Frames[0].stack = []Slot{slotOfKinds(StackMisc), slotOfKinds(StackMisc), spill(v, 0, false)}
		return cur
	}
	checkHintSteps(t, old, func() uint8 { return old.Frames[0].sum.hint }, []hintStep{
		{curWith(500), false, 3}, // out of old's range: fails at fp-24
		{curWith(5), true, 3},    // the hinted slot, compared once, holds
		{curWith(101), false, 3},
	})
}

// hintStep is one comparison against a sealed checkpoint: its answer and
// the hint it must leave.
type hintStep struct {
	cur      *State
	want     bool
	wantHint uint8
}

// checkHintSteps compares each step's state with old in turn, with one
// EqualEnv, and checks the answer and the hint read by hint afterwards.
func checkHintSteps(t *testing.T, old *State, hint func() uint8, steps []hintStep) {
	t.Helper()
	var e EqualEnv
	for i, s := range steps {
		got := e.StatesEqual(old, s.cur, NotExact)
		if diff := cmp.Diff([]any{s.want, s.wantHint}, []any{got, hint()}); diff != "" {
			t.Errorf("step %d: (equal, hint) (-want +got):\n%s", i, diff)
		}
	}
}

// TestStatesEqualRegHint: a comparison that failed at a register of a
// sealed checkpoint leaves a hint there; the next comparison tests that
// register first and, when it holds, does not compare it again (its id
// would be paired a second time and fail against itself).
func TestStatesEqualRegHint(t *testing.T) {
	scalar := func(v uint64, id uint32, precise bool) Reg {
		var r Reg
		r.MarkConst(v)
		r.ID = id
		r.SetPrecise(precise)
		return r
	}
	old := NewState()
	old.Frames[0].Regs()[1] = scalar(1, 0, true)
	old.Frames[0].Regs()[4] = scalar(0, 7, true)
	old.Frames[0].Regs()[4].Scalar = urange(0, 100)
	old.Seal()
	curWith := func(r1, r4 uint64) *State {
		cur := NewState()
		cur.Frames[0].Regs()[1] = scalar(r1, 0, false)
		cur.Frames[0].Regs()[4] = scalar(r4, 0, false)
		return cur
	}
	checkHintSteps(t, old, func() uint8 { return old.Frames[0].sum.regHint }, []hintStep{
		{curWith(1, 500), false, 5}, // out of old's range: fails at r4
		{curWith(1, 5), true, 5},    // the hinted register, compared once, holds
		{curWith(2, 5), false, 2},   // fails at r1 now
		{curWith(1, 101), false, 5},
	})
}

// TestPreciseScalars checks PreciseScalars against a walk of every
// register and slot, on dense, packed and sealed frames, also after
// precision marks reach a sealed one.
func TestPreciseScalars(t *testing.T) {
	naive := func(f *Frame) (regs uint16, slots uint64) {
		for r := 0; r < RegFP; r++ {
			if f.Reg(r).Type == ScalarValue && f.Reg(r).Precise() {
				regs |= 1 << r
			}
		}
		for spi := range f.NumSlots() {
			if s := f.Slot(spi); s.IsSpilledScalarReg() && s.Spilled.Precise() {
				slots |= 1 << spi
			}
		}
		return regs, slots
	}
	check := func(what string, f *Frame) {
		t.Helper()
		wr, ws := naive(f)
		if gr, gs := f.PreciseScalars(); gr != wr || gs != ws {
			t.Fatalf("%s: PreciseScalars = %#x, %#x; want %#x, %#x", what, gr, gs, wr, ws)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	var p Pool
	for n := 0; n < 2000; n++ {
		s := NewState()
		f := s.Frames[0]
		for i := r.IntN(maxSlots + 1); i > 0; i-- {
			f.stack = append(f.stack, randomSlot(r))
		}
		for i := range RegFP {
			if r.IntN(2) == 0 {
				f.Regs()[i] = randomReg(r)
			}
		}
		check("dense", f)
		packed := p.ClonePacked(s)
		check("packed", packed.Frames[0])
		packed.Seal()
		check("sealed", packed.Frames[0])
		pf := packed.Frames[0]
		if i := r.IntN(RegFP); pf.Reg(i).Type == ScalarValue {
			pf.SetRegPrecise(i, pf.Reg(i))
		}
		if ns := pf.NumSlots(); ns > 0 {
			if spi := r.IntN(ns); pf.Slot(spi).IsSpilledScalarReg() {
				pf.SetSlotPrecise(spi, pf.Slot(spi))
			}
		}
		check("sealed, then marked", pf)
		p.Put(packed)
	}
}

// TestCheckpointIsSealedPackedCopy checks that Pool.Checkpoint, which packs
// and seals a frame in one walk of its stack, makes exactly what
// ClonePacked followed by Seal makes: the same held slots and registers
// and the same summary, over random frames of every stack size, with a
// second frame on some of them and memory reused from earlier copies.
func TestCheckpointIsSealedPackedCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var p Pool
	view := func(f *Frame) any {
		return struct {
			Stack                             []Slot
			Regs                              []Reg
			Dense                             *[NumRegs]Reg
			Present                           uint64
			NSlots                            int32
			RegPresent                        uint16
			Words                             []uint64
			Invalid, Misc, Plain, Loose       uint64
			Inited, LooseRegs                 uint16
			Valid, RegsValid, Packed          bool
			CallSite, FrameNo, SubProg, Depth int32
		}{
			f.stack, f.pregs, f.dense, f.present, f.nslots, f.regPresent,
			f.sum.words, f.sum.invalid, f.sum.misc, f.sum.plain, f.sum.looseSlots,
			f.sum.inited, f.sum.looseRegs,
			f.sum.valid, f.sum.regsValid, f.packed,
			f.CallSite, f.FrameNo, f.SubProg, f.CallbackDepth,
		}
	}
	var kept []*State
	for n := 0; n < 600; n++ {
		s := NewState()
		if r.IntN(4) == 0 {
			s.Frames[1] = newFrame()
			InitFrame(s.Frames[1], 7, 1, 2)
			s.CurFrame = 1
		}
		for i := 0; i <= int(s.CurFrame); i++ {
			f := s.Frames[i]
			for j := r.IntN(maxSlots + 1); j > 0; j-- {
				sl := randomSlot(r)
				if r.IntN(3) == 0 {
					sl = Slot{}
				}
				f.stack = append(f.stack, sl)
			}
			for j := range RegFP {
				if r.IntN(2) == 0 {
					f.Regs()[j] = randomReg(r)
				}
			}
		}
		// Half the time CheckpointImprecise, against
		// MarkAllScalarsImprecise on a copy of s first.
		imprecise := r.IntN(2) == 0
		ref := p.Clone(s)
		if imprecise {
			ref.MarkAllScalarsImprecise()
		}
		want := p.ClonePacked(ref)
		want.Seal()
		var got *State
		if imprecise {
			got = p.CheckpointImprecise(s)
		} else {
			got = p.Checkpoint(s)
		}
		if int(got.CurFrame) != int(want.CurFrame) {
			t.Fatalf("copy %d: CurFrame %d, want %d", n, got.CurFrame, want.CurFrame)
		}
		for i := 0; i <= int(s.CurFrame); i++ {
			if diff := cmp.Diff(view(want.Frames[i]), view(got.Frames[i]), cmpopts.EquateEmpty(), allowReg); diff != "" {
				t.Fatalf("copy %d (imprecise %v), frame %d: the checkpoint differs from ClonePacked+Seal (-want +got):\n%s", n, imprecise, i, diff)
			}
			// The source is left as the reference was made.
			if diff := cmp.Diff(view(ref.Frames[i]), view(s.Frames[i]), cmpopts.EquateEmpty(), allowReg); diff != "" {
				t.Fatalf("copy %d (imprecise %v), frame %d: the source differs from the reference (-want +got):\n%s", n, imprecise, i, diff)
			}
		}
		p.Put(want)
		p.Put(ref)
		// Keep some, give the others back: later copies reuse their
		// memory.
		if r.IntN(2) == 0 {
			kept = append(kept, got)
		} else {
			p.Put(got)
		}
	}
	for _, s := range kept {
		p.Put(s)
	}
}

// TestReadsAsFlaglessScalar checks the comparison's inline test of a cur
// slot against an old loose spilled scalar against its definition:
// scalarForStack finds a scalar and it has no flags.
func TestReadsAsFlaglessScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	seen := map[bool]int{}
	for n := 0; n < 20000; n++ {
		s := randomSlot(r)
		for _, unpriv := range []bool{false, true} {
			e := EqualEnv{Unprivileged: unpriv}
			cr := e.scalarForStack(&s)
			want := cr != nil && cr.Flags == 0
			if got := readsAsFlaglessScalar(&s, !unpriv); got != want {
				t.Fatalf("slot %+v, unprivileged %v: readsAsFlaglessScalar = %v, want %v", s, unpriv, got, want)
			}
			seen[want]++
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("random slots exercised only one answer: %v", seen)
	}
}
