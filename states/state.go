package states

import "math/bits"

// Whole verifier states: creation, deep copy, precision marks and cleaning.
//
// A State owns its frames (Frames[0..CurFrame]; the entries above CurFrame
// are nil) and each frame owns its Stack. Copying is the verifier's hottest
// operation after instruction simulation (every branch pushes a copy, every
// checkpoint stores one), so CopyFrom reuses the destination's frames and
// slices and allocates only when the destination is smaller than the
// source.

// MainCallSite is the CallSite of frame 0: the main program was not called
// from any instruction (the kernel's BPF_MAIN_FUNC).
const MainCallSite = -1

// InitFrame resets f to the state at entry of a function (the kernel's
// init_func_state): every register NotInit except r10, the frame pointer,
// an empty stack (keeping its memory), no callback bookkeeping.
func InitFrame(f *Frame, callSite, frameNo, subProg int32) {
	stack := f.Stack[:0]
	sum := f.sum
	sum.reset()
	*f = Frame{
		Stack:    stack,
		sum:      sum,
		CallSite: callSite,
		FrameNo:  frameNo,
		SubProg:  subProg,
	}
	for i := range f.Regs {
		f.Regs[i].MarkNotInit()
	}
	f.Regs[RegFP].MarkFramePointer(frameNo)
}

// NewState returns the state at entry of the main program: one frame,
// initialised by InitFrame, with one open branch (the path being explored).
// Callers set r1 (the context) themselves.
func NewState() *State {
	s := &State{Branches: 1}
	s.Frames[0] = &Frame{}
	InitFrame(s.Frames[0], MainCallSite, 0, 0)
	return s
}

// Cur returns the frame of the function being executed.
func (s *State) Cur() *Frame { return s.Frames[s.CurFrame] }

// FrameInsnIdx returns the instruction frame i is at: the current
// instruction for the top frame, and the call instruction it is waiting on
// for every frame below (the kernel's frame_insn_idx).
func (s *State) FrameInsnIdx(i int) int {
	if i == int(s.CurFrame) {
		return int(s.InsnIdx)
	}
	return int(s.Frames[i+1].CallSite)
}

// SameCallsites reports whether s and o have the same call chain: the same
// depth and the same call instruction for every frame.
func (s *State) SameCallsites(o *State) bool {
	if s.CurFrame != o.CurFrame {
		return false
	}
	for i := s.CurFrame; i >= 0; i-- {
		if s.Frames[i].CallSite != o.Frames[i].CallSite {
			return false
		}
	}
	return true
}

// CopyFrom makes s a deep copy of src (the kernel's copy_verifier_state),
// reusing the memory of s: its frames, stacks, references and jump history
// are overwritten in place and grown only when too small. Frames of s above
// src.CurFrame are dropped. Every field is copied, including Parent,
// Branches and InsnIdx.
func (s *State) CopyFrom(src *State) {
	if s == src {
		return
	}
	frames := s.Frames
	refs := s.Refs
	hist := s.JmpHistory
	*s = *src
	s.StoreEntry = 0
	s.Freed = false
	s.Frames = frames
	s.Refs = append(refs[:0], src.Refs...)
	s.JmpHistory = append(hist[:0], src.JmpHistory...)
	for i := range s.Frames {
		if i > int(src.CurFrame) {
			if s.Frames[i] != nil {
				// Only when set: a pointer store costs a write
				// barrier while the collector runs, and a recycled
				// state has no frames.
				s.Frames[i] = nil
			}
			continue
		}
		if s.Frames[i] == nil {
			s.Frames[i] = &Frame{}
		}
		s.Frames[i].CopyFrom(src.Frames[i])
	}
}

// CopyFrom makes f a deep copy of src (the kernel's copy_func_state),
// reusing the memory of f's stack.
func (f *Frame) CopyFrom(src *Frame) {
	if f == src {
		return
	}
	stack := f.Stack
	if cap(stack) < len(src.Stack) {
		// Allocate for src's length, rounded up to its size class,
		// rather than let append double the old capacity: a stored
		// checkpoint never grows, and a capacity beyond maxSlots is
		// never used.
		stack = nil
	}
	sum := f.sum
	*f = *src
	f.Stack = append(stack[:0], src.Stack...)
	// The copy is a working state that will change: no summary (and no
	// sharing of src's words).
	f.sum = sum
	f.sum.reset()
}

// Seal records that s has become a stored checkpoint whose stack no
// longer changes except through Clean: it caches, per frame, which slots
// StatesEqual can skip without reading them. Precision marks may still
// change (they are not part of the cache). A copy of s is not sealed. The
// explored-state store seals every state it is given.
func (s *State) Seal() {
	for i := 0; i <= int(s.CurFrame) && i < MaxCallFrames; i++ {
		if f := s.Frames[i]; f != nil {
			f.seal()
		}
	}
}

// seal computes f's stack summary.
func (f *Frame) seal() {
	f.sum.reset()
	var inited uint16
	for i := range f.Regs {
		if f.Regs[i].Type != NotInit {
			inited |= 1 << i
		}
	}
	f.sum.inited, f.sum.regsValid = inited, true
	if len(f.Stack) > 64 {
		return
	}
	var invalid, misc, plain uint64
	words := f.sum.words
	if n := len(f.Stack); cap(words) < n {
		words = make([]uint64, n)
	} else {
		words = words[:n]
	}
	for spi := range f.Stack {
		w := slotWord(&f.Stack[spi])
		words[spi] = w
		bit := uint64(1) << spi
		if w == 0 {
			invalid |= bit
			misc |= bit
			plain |= bit
			continue
		}
		if w&^everyByteMisc == 0 {
			misc |= bit
		}
		if isPlainWord(w) {
			plain |= bit
		}
	}
	f.sum = stackSummary{words: words, invalid: invalid, misc: misc, plain: plain, inited: inited, regsValid: true, valid: true}
}

// invalidateSlots makes every allocated slot of f named in dead
// StackInvalid (bit spi for slot spi), visiting only those.
func (f *Frame) invalidateSlots(dead uint64) {
	if n := len(f.Stack); n < maxSlots {
		dead &= 1<<n - 1
	}
	sealed := f.sum.valid
	if sealed {
		// Already all INVALID: nothing reads the spilled register of
		// such a slot (comparisons skip it, printing and precision
		// test the kinds first), so resetting it would only write a
		// cold slot.
		dead &^= f.sum.invalid
	}
	for ; dead != 0; dead &= dead - 1 {
		spi := bits.TrailingZeros64(dead)
		f.Stack[spi].Invalidate()
		if sealed {
			// An untouched slot: keep the summary current.
			bit := uint64(1) << spi
			f.sum.words[spi] = 0
			f.sum.invalid |= bit
			f.sum.misc |= bit
			f.sum.plain |= bit
		}
	}
}

// setScalarsPrecise sets the precision mark of every scalar register of
// the frames 0..CurFrame of s to precise: r0..r9 and every spilled
// register, r10 excluded (it is never a scalar). This is the walk of
// mark_all_scalars_(im)precise; it runs on every new checkpoint, so it
// makes no call per register (a callback per scalar was most of its cost)
// and writes a mark only when it changes.
func (s *State) setScalarsPrecise(precise bool) {
	for i := 0; i <= int(s.CurFrame); i++ {
		f := s.Frames[i]
		for j := 0; j < RegFP; j++ {
			if r := &f.Regs[j]; r.Type == ScalarValue && r.Precise() != precise {
				r.SetPrecise(precise)
			}
		}
		for j := range f.Stack {
			if sl := &f.Stack[j]; sl.IsSpilledScalarReg() && sl.Spilled.Precise() != precise {
				sl.Spilled.SetPrecise(precise)
			}
		}
	}
}

// MarkAllScalarsImprecise drops the precision mark of every scalar register
// and spilled scalar of s (mark_all_scalars_imprecise). The verifier does
// this to the current state before storing it as a checkpoint, so that the
// checkpoint is as general as possible; descendants re-add the marks they
// need.
func (s *State) MarkAllScalarsImprecise() {
	s.setScalarsPrecise(false)
}

// MarkAllScalarsPrecise sets the precision mark of every scalar register and
// spilled scalar of s and of all its ancestors through Parent
// (mark_all_scalars_precise): the fallback when precision backtracking
// cannot follow a value.
func (s *State) MarkAllScalarsPrecise() {
	for st := s; st != nil; st = st.Parent {
		st.setScalarsPrecise(true)
	}
}

// Clean resets what no later instruction can read (clean_verifier_state):
// for every frame, each register r0..r9 that env.LiveRegs says is dead at
// the frame's instruction becomes NotInit, and each stack slot that
// env.AliveSlots leaves out becomes StackInvalid. It then marks s Cleaned.
// Cleaning a stored checkpoint makes later comparisons against it both
// cheaper and more likely to succeed; r10 is never cleaned.
func (s *State) Clean(env *EqualEnv) {
	s.Cleaned = true
	for i := 0; i <= int(s.CurFrame); i++ {
		f := s.Frames[i]
		ip := s.FrameInsnIdx(i)
		live := allRegsLive
		if env != nil && env.LiveRegs != nil {
			live = env.LiveRegs(ip)
		}
		for r := 0; r < RegFP; r++ {
			if live&(1<<r) == 0 {
				f.Regs[r].MarkNotInit()
				f.sum.inited &^= 1 << r
			}
		}
		if env == nil || env.AliveSlots == nil {
			continue
		}
		f.invalidateSlots(^env.AliveSlots(i, ip))
	}
}
