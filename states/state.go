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
	f.ensureDense()
	stack := f.stack[:0]
	sum := f.sum
	sum.reset()
	*f = Frame{
		stack:    stack,
		dense:    f.dense,
		pregs:    f.pregs[:0],
		sum:      sum,
		CallSite: callSite,
		FrameNo:  frameNo,
		SubProg:  subProg,
	}
	*f.dense = notInitRegs
	f.dense[RegFP].MarkFramePointer(frameNo)
}

// NewState returns the state at entry of the main program: one frame,
// initialised by InitFrame, with one open branch (the path being explored).
// Callers set r1 (the context) themselves.
func NewState() *State {
	s := &State{Branches: 1}
	s.Frames[0] = newFrame()
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

// ChainKey hashes s's call chain (its depth and every frame's call
// site): states whose keys differ have different chains (SameCallsites is
// false), so that a bucket walk can pass over a stored state of another
// chain without reading it. Equal keys say nothing.
func (s *State) ChainKey() uint64 {
	h := uint64(s.CurFrame)
	for i := 0; i <= int(s.CurFrame); i++ {
		h = bits.RotateLeft64(h, 23)
		if f := s.Frames[i]; f != nil { // as Seal, for a state without frames
			h += uint64(uint32(f.CallSite))
		}
	}
	return h * 0x9e3779b97f4a7c15
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
	s.copyAllButFrames(src)
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
			s.Frames[i] = newFrame()
		}
		s.Frames[i].CopyFrom(src.Frames[i])
	}
}

// copyAllButFrames makes every field of s but its frames a copy of src's,
// reusing the memory of s's references and jump history; s keeps its
// frames.
func (s *State) copyAllButFrames(src *State) {
	frames := s.Frames
	refs := s.Refs
	hist := s.JmpHistory
	*s = *src
	s.StoreEntry = 0
	s.SCCVisit = 0
	s.Freed = false
	s.Frames = frames
	s.Refs = append(refs[:0], src.Refs...)
	s.JmpHistory = append(hist[:0], src.JmpHistory...)
}

// CopyFrom makes f a deep copy of src (the kernel's copy_func_state),
// reusing the memory of f's stack. The copy is dense (a working frame)
// whatever src's layout.
func (f *Frame) CopyFrom(src *Frame) {
	if f == src {
		return
	}
	stack := f.stack
	if n := src.NumSlots(); cap(stack) < n {
		// Allocate for src's length, rounded up to its size class,
		// rather than let append double the old capacity: a capacity
		// beyond maxSlots is never used.
		stack = nil
	}
	sum := f.sum
	f.ensureDense()
	dense, pregs := f.dense, f.pregs[:0]
	src.unpackRegsTo(dense)
	*f = *src
	f.dense, f.pregs, f.regPresent = dense, pregs, 0
	if src.packed {
		f.stack = stack[:0]
		f.present, f.nslots, f.packed = 0, 0, false
		f.GrowStack(int(src.nslots) * SlotSize)
		scatter(f.stack, src.stack, src.present)
	} else {
		f.stack = append(stack[:0], src.stack...)
	}
	// The copy is a working state that will change: no summary (and no
	// sharing of src's words).
	f.sum = sum
	f.sum.reset()
}

// packFrom makes f a packed copy of src: its fields, the registers of src
// that are not canonical NotInit, and only the stack slots of src some
// byte of which was written, reusing f's stack and register memory when
// it is large enough and carving new memory from p's blocks otherwise.
func (f *Frame) packFrom(src *Frame, p *Pool) {
	f.packRegsFrom(src, p)
	pregs, regPresent := f.pregs, f.regPresent
	if src.packed {
		sum, stack := f.sum, f.stack
		if cap(stack) < len(src.stack) {
			stack = p.slots.carve(len(src.stack))
		}
		*f = *src
		f.stack = append(stack[:0], src.stack...)
		f.pregs, f.regPresent = pregs, regPresent
		f.sum = sum
		f.sum.reset()
		return
	}
	var present uint64
	for spi := range src.stack {
		if src.stack[spi].IsValid() {
			present |= 1 << spi
		}
	}
	n := bits.OnesCount64(present)
	stack := f.stack
	if cap(stack) < n {
		stack = p.slots.carve(n)
	}
	stack = stack[:n]
	sum := f.sum
	*f = *src
	gather(stack, src.stack, present)
	f.stack, f.present, f.nslots, f.packed = stack, present, int32(len(src.stack)), true
	f.dense, f.pregs, f.regPresent = nil, pregs, regPresent
	f.sum = sum
	f.sum.reset()
}

// checkpointFrom makes f a packed and sealed copy of src, as packFrom and
// then seal would, for Pool.Checkpoint; with imprecise set it first drops
// the precision mark of every scalar of src, registers and spilled, as
// MarkAllScalarsImprecise would (Pool.CheckpointImprecise). From a dense
// src of at most 64 slots it walks src's stack once: the word of kinds
// that tells whether a slot was written (and so is held) is the word the
// summary keeps for it (gathered in p.words64 until their number is
// known), the masks follow from it, and a spilled scalar's mark is dropped
// as the slot is read. packFrom, seal and the marking each walked every
// slot: one walk instead of three took a corpus pass's checkpoints from
// 0.69G to 0.48G instructions.
func (f *Frame) checkpointFrom(src *Frame, p *Pool, imprecise bool) {
	if imprecise {
		src.setRegsPrecise(false)
		if src.packed || len(src.stack) > maxSlots {
			src.setSlotsPrecise(false)
		}
	}
	if src.packed || len(src.stack) > maxSlots {
		f.packFrom(src, p)
		if n := len(f.stack); cap(f.sum.words) < n {
			f.sum.words = p.words.carve(n)[:0]
		}
		f.seal()
		return
	}
	f.packRegsFrom(src, p)
	pregs, regPresent := f.pregs, f.regPresent
	// The walk keeps only what it must in registers: the slots never
	// written are those not present, and a slot whose last byte is a
	// spill is neither all-MISC nor plain.
	var present, misc, plain, looseSlots uint64
	scratch := &p.words64
	n := 0
	srcStack := src.stack
	for spi := range srcStack {
		sl := &srcStack[spi]
		w := slotWord(sl)
		if w == 0 {
			continue
		}
		bit := uint64(1) << (spi & 63)
		present |= bit
		scratch[n&(maxSlots-1)] = w
		n++
		if SlotType(w>>(8*lastByte)) == StackSpill {
			if r := &sl.Spilled; r.Type == ScalarValue {
				if imprecise && r.Precise() {
					r.SetPrecise(false)
				}
				if w == everyByteSpill && isLoose(r) {
					looseSlots |= bit
				}
			}
			continue
		}
		if w&^everyByteMisc == 0 {
			misc |= bit
		}
		if isPlainWord(w) {
			plain |= bit
		}
	}
	// Slots never written are in every mask.
	invalid := ^present
	if k := len(srcStack); k < 64 {
		invalid &= 1<<k - 1
	}
	misc |= invalid
	plain |= invalid
	stack := f.stack
	if cap(stack) < n {
		stack = p.slots.carve(n)
	}
	stack = stack[:n]
	words := f.sum.words
	if cap(words) < n {
		words = p.words.carve(n)
	}
	words = words[:n]
	copy(words, scratch[:n])
	*f = *src
	gather(stack, src.stack, present)
	f.stack, f.present, f.nslots, f.packed = stack, present, int32(len(src.stack)), true
	f.dense, f.pregs, f.regPresent = nil, pregs, regPresent
	f.sum = stackSummary{}
	f.sealRegs()
	sum := &f.sum
	sum.words, sum.invalid, sum.misc, sum.plain, sum.looseSlots = words, invalid, misc, plain, looseSlots
	sum.valid = true
}

// gather copies the slots of dense named in present, in index order, to
// packed.
func gather(packed, dense []Slot, present uint64) { copyRuns(dense, packed, present, true) }

// scatter is gather's inverse: it copies the packed slots to the indexes
// present names in dense, leaving the other slots of dense as they are.
func scatter(dense, packed []Slot, present uint64) { copyRuns(dense, packed, present, false) }

// copyRuns copies between a dense stack and its packed slots, towards
// packed when pack is set, a run of consecutive slots at a time.
func copyRuns(dense, packed []Slot, present uint64, pack bool) {
	k := 0
	for p := present; p != 0; {
		lo := bits.TrailingZeros64(p)
		n := bits.TrailingZeros64(^(p >> lo))
		if pack {
			copy(packed[k:k+n], dense[lo:lo+n])
		} else {
			copy(dense[lo:lo+n], packed[k:k+n])
		}
		k += n
		p &^= (uint64(1)<<n - 1) << lo
	}
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

// Sealed reports whether every frame of s has its summary (Seal, or
// Pool.Checkpoint, which seals the copy it makes). Every writer of a
// sealed frame keeps its summary current, so a sealed state need not be
// sealed again.
func (s *State) Sealed() bool {
	for i := 0; i <= int(s.CurFrame) && i < MaxCallFrames; i++ {
		if f := s.Frames[i]; f != nil && !(f.sum.valid && f.sum.regsValid) {
			return false
		}
	}
	return true
}

// seal computes f's stack summary.
func (f *Frame) seal() {
	f.sum.reset()
	f.sealRegs()
	if f.NumSlots() > 64 {
		return
	}
	words := f.sum.words
	if n := len(f.stack); cap(words) < n {
		words = make([]uint64, n)
	} else {
		words = words[:n]
	}
	all := ^uint64(0)
	if n := f.NumSlots(); n < 64 {
		all = 1<<n - 1
	}
	held := all
	if f.packed {
		held = f.present
	}
	// Slots a packed frame does not hold are all INVALID.
	invalid, misc, plain := all&^held, all&^held, all&^held
	var looseSlots uint64
	k := 0
	for p := held; p != 0; p &= p - 1 {
		spi := bits.TrailingZeros64(p)
		w := slotWord(&f.stack[k])
		words[k] = w
		bit := uint64(1) << spi
		if w == everyByteSpill && isLoose(&f.stack[k].Spilled) {
			looseSlots |= bit
		}
		k++
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
	// Field by field: the summary was reset above and holds the register
	// part; a literal would be built in a temporary and copied.
	sum := &f.sum
	sum.words, sum.invalid, sum.misc, sum.plain, sum.looseSlots = words, invalid, misc, plain, looseSlots
	sum.valid = true
}

// sealRegs computes the register part of f's summary (inited, looseRegs).
func (f *Frame) sealRegs() {
	var inited, looseRegs uint16
	mask, regs := f.heldRegs()
	for k, m := 0, mask; m != 0; k, m = k+1, m&(m-1) {
		if regs[k].Type != NotInit {
			inited |= 1 << bits.TrailingZeros16(m)
		}
		if isLoose(&regs[k]) {
			looseRegs |= 1 << bits.TrailingZeros16(m)
		}
	}
	f.sum.inited, f.sum.looseRegs, f.sum.regsValid = inited, looseRegs, true
}

// invalidateSlots makes every allocated slot of f named in dead
// StackInvalid (bit spi for slot spi), visiting only those.
func (f *Frame) invalidateSlots(dead uint64) {
	if n := f.NumSlots(); n < maxSlots {
		dead &= 1<<n - 1
	}
	if f.packed {
		// The slots a packed frame does not hold are INVALID already.
		dead &= f.present
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
		k := f.storeIndex(spi)
		f.stack[k].Invalidate()
		if sealed {
			// An untouched slot: keep the summary current.
			bit := uint64(1) << spi
			f.sum.words[k] = 0
			f.sum.invalid |= bit
			f.sum.misc |= bit
			f.sum.plain |= bit
			f.sum.looseSlots &^= bit
			f.sum.spills &^= bit
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
		if precise {
			// No scalar is loose any more.
			f.sum.looseRegs, f.sum.looseSlots = 0, 0
		}
		f.setRegsPrecise(precise)
		f.setSlotsPrecise(precise)
	}
}

// setSlotsPrecise is setScalarsPrecise's walk of f's spilled scalars
// (every layout holds its spilled registers in f.stack).
func (f *Frame) setSlotsPrecise(precise bool) {
	for j := range f.stack {
		if sl := &f.stack[j]; sl.IsSpilledScalarReg() && sl.Spilled.Precise() != precise {
			sl.Spilled.SetPrecise(precise)
		}
	}
}

// setRegsPrecise is setScalarsPrecise's walk of f's registers.
func (f *Frame) setRegsPrecise(precise bool) {
	mask, regs := f.heldRegs()
	k := 0
	for m := mask &^ (1 << RegFP); m != 0; m &= m - 1 {
		// regs[k] is the register of the lowest bit of m, as r10 (the
		// highest) is never reached.
		if r := &regs[k]; r.Type == ScalarValue && r.Precise() != precise {
			r.SetPrecise(precise)
		}
		k++
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
				// A register a packed frame left out is NotInit
				// already.
				if reg := f.HeldReg(r); reg != nil {
					reg.MarkNotInit()
				}
				f.sum.inited &^= 1 << r
				f.sum.looseRegs &^= 1 << r
			}
		}
		if env == nil || env.AliveSlots == nil {
			continue
		}
		f.invalidateSlots(^env.AliveSlots(i, ip))
	}
}
