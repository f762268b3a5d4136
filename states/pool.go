package states

import (
	"slices"
	"unsafe"
)

// Pool recycles states and frames so that the verifier's push/pop and
// checkpoint traffic does not allocate in steady state. A recycled State
// keeps the capacity of its Refs and JmpHistory; a recycled Frame keeps the
// capacity of its stack. A packed copy's history is carved from the pool's
// blocks, and a working copy's comes from the heap with room to grow: a
// state recycled into a packed copy hands its heap history on to the next
// working copy (histBufs), so that checkpoints do not keep what working
// states need.
//
// Frames that were packed are kept apart from the others: their stacks
// are as small as the written slots of a checkpoint, where a working
// frame's is as large as its allocated stack. A checkpoint given a
// working frame's stack would keep kilobytes alive for a few slots, and
// the next working copy would need fresh memory for what it took.
//
// A Pool is not safe for concurrent use. A state must not be Put while
// another state still points at it through Parent. Packed stacks and
// registers live in blocks outside the Go heap (arena.go) that Trim and
// Abandon give back: no state or frame the pool made may be read after
// them, but those Trim keeps for reuse, which it empties first.
type Pool struct {
	states []*State
	frames []*Frame
	// packedFrames are recycled frames that were packed.
	packedFrames []*Frame
	// statesLow, framesLow and packedLow are the fewest states, frames
	// and packed frames the lists held since the last Trim: those below
	// were emptied of carved memory by it and not handed out since, so
	// Trim need not visit them again (see Trim).
	statesLow, framesLow, packedLow int
	// slots and regs are the blocks packed stacks and packed registers
	// are carved from (see slab).
	slots slab[Slot]
	regs  slab[Reg]
	// words are the blocks a sealed packed frame's summary words are
	// carved from.
	words slab[uint64]
	// hist are the blocks the jump histories of packed copies are carved
	// from; histBufs are spare histories of the heap, with room for
	// workingHistCap entries, for working copies.
	hist     slab[JmpHistEntry]
	histBufs [][]JmpHistEntry
	// words64 is where Frame.checkpointFrom gathers a frame's summary
	// words before it knows how many to carve.
	words64 [maxSlots]uint64
}

// workingHistCap is the room a working copy's jump history gets: a path
// is checkpointed soon after its history passes 40 entries (the
// verifier's maxJmpHistory), so it seldom grows further.
const workingHistCap = 64

// Packed stacks and registers are carved from blocks of blockBytes
// (~100 KB each; see arena.go). A checkpoint needs a few of each, exactly
// as many as it holds, and most live until the end of the verification:
// carving them from large blocks costs a slice header where an allocation
// of its own cost a trip through the allocator (a fifth of a corpus run's
// verification time went to packing, more than half of it allocation).
// No packed frame holds more than 64 slots or 11 registers, so a block's
// unused tail is at most 6% of it.

// A slab hands out slices carved from large blocks, mapped outside the Go
// heap (arena), which go back to the arena's free list when the
// verification ends (recycle). Every carved slice is written whole before
// it is read (packFrom, packRegsFrom), so a block is reused as it is,
// without zeroing.
type slab[T any] struct {
	// cur is the block being carved, its length what is handed out.
	cur []T
	// used are the blocks carved from since the last recycle, cur's
	// included; mapped are those of them that came from the arena.
	used   [][]T
	mapped []unsafe.Pointer
}

// carve returns a slice of n elements cut from the slab, with no capacity
// beyond n (an append to it reallocates instead of writing into its
// neighbour), starting a new block when the current one has less than n
// left: one from the arena, or from the heap if the arena has none to
// give or n is larger than a block.
func (s *slab[T]) carve(n int) []T {
	if cap(s.cur)-len(s.cur) < n {
		s.cur = nil
		size := blockBytes / int(unsafe.Sizeof(*new(T)))
		if n <= size {
			if b := arena.get(); b != nil {
				s.cur = unsafe.Slice((*T)(b), size)[:0]
				s.mapped = append(s.mapped, b)
			}
		}
		if s.cur == nil {
			s.cur = make([]T, 0, max(size, n))
		}
		s.used = append(s.used, s.cur)
	}
	l := len(s.cur)
	s.cur = s.cur[:l+n]
	return s.cur[l : l+n : l+n]
}

// holds reports whether x was carved from one of the blocks in use.
func (s *slab[T]) holds(x []T) bool {
	if cap(x) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	size := unsafe.Sizeof(*new(T))
	for _, b := range s.used {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if p >= lo && p < lo+uintptr(cap(b))*size {
			return true
		}
	}
	return false
}

// recycle gives the blocks in use back to the arena (those of the heap to
// the collector). Nothing may hold a slice carved from them any more.
func (s *slab[T]) recycle() {
	arena.put(s.mapped)
	clear(s.mapped)
	clear(s.used)
	s.used, s.mapped, s.cur = s.used[:0], s.mapped[:0], nil
}

// Get returns a state in the condition NewState returns one: the main
// frame initialised, one open branch.
func (p *Pool) Get() *State {
	s := p.state()
	s.Branches = 1
	s.Frames[0] = p.frame()
	InitFrame(s.Frames[0], MainCallSite, 0, 0)
	return s
}

// Clone returns a deep copy of src built from recycled memory.
func (p *Pool) Clone(src *State) *State {
	s := p.state()
	if cap(s.JmpHistory) < max(len(src.JmpHistory), workingHistCap) {
		s.JmpHistory = p.workingHist(len(src.JmpHistory))
	}
	for i := 0; i <= int(src.CurFrame); i++ {
		s.Frames[i] = p.frame() // CopyFrom overwrites every field
	}
	s.CopyFrom(src)
	return s
}

// ClonePacked returns a copy of src with packed stacks (only the written
// slots are held; see the stack's doc), for a state that will be read far
// more than written: a checkpoint, or a branch waiting on the stack of
// pending paths. Writes to it must go through Frame.Slot and only to
// written slots (comparisons, cleaning, precision marks, the refinements
// of a branch just pushed); anything that grows its stack unpacks it.
func (p *Pool) ClonePacked(src *State) *State {
	s := p.state()
	p.fitHistory(s, src)
	s.copyAllButFrames(src)
	for i := 0; i <= int(src.CurFrame); i++ {
		s.Frames[i] = p.packedFrame()
		s.Frames[i].packFrom(src.Frames[i], p)
	}
	return s
}

// Backedge returns a copy of src without its frames (every entry of
// Frames nil), for a loop back-edge: the current state kept, when it
// matched a checkpoint of a loop still being explored, until the loop's
// precision is propagated again (the kernel's bpf_scc_backedge). That
// propagation walks back from the copy through its history and then its
// ancestors (propagate_precision, __mark_chain_precision), and of the copy
// itself reads only its position (InsnIdx, FirstInsnIdx), its history, its
// number of frames and its parent: the registers and stack it is asked
// for are those of the ancestors, and the fallback that makes every scalar
// precise skips the copy itself. The kernel copies the whole state, which
// decides nothing; a packed copy of the frames was two fifths of the
// copies a loop-heavy program makes (falco's bpf_probe.o). The copy must
// not be read as a state otherwise; Put takes it back.
func (p *Pool) Backedge(src *State) *State {
	s := p.state()
	p.fitHistory(s, src)
	s.copyAllButFrames(src)
	return s
}

// fitHistory gives s, about to become a packed copy of src, room for
// src's jump history: carved from the pool's blocks when its own is too
// small. A packed copy's history is never appended to (a packed pending
// branch resumes into the current state's memory), and a checkpoint's
// lives as long as the checkpoint: allocated, the histories were a third
// of the bytes a bpf_loop-heavy program allocated, and the collections
// they brought marked every stored state.
func (p *Pool) fitHistory(s, src *State) {
	if cap(s.JmpHistory) >= workingHistCap {
		// A working copy's: kept for the next one.
		p.histBufs = append(p.histBufs, s.JmpHistory[:0])
		s.JmpHistory = nil
	}
	if n := len(src.JmpHistory); cap(s.JmpHistory) < n {
		s.JmpHistory = p.hist.carve(n)[:0]
	}
}

// workingHist returns an empty history with room for n entries and at
// least workingHistCap, a spare one if it has room.
func (p *Pool) workingHist(n int) []JmpHistEntry {
	if k := len(p.histBufs); k > 0 && cap(p.histBufs[k-1]) >= n {
		h := p.histBufs[k-1]
		p.histBufs[k-1] = nil
		p.histBufs = p.histBufs[:k-1]
		return h
	}
	return make([]JmpHistEntry, 0, max(n, workingHistCap))
}

// Checkpoint is ClonePacked for a state the explored-state store will
// hold: the copy is also sealed (State.Seal), its summary words carved
// from the pool's blocks like its slots, where sealing allocated them (a
// checkpoint's frame was one more allocation for the collector).
func (p *Pool) Checkpoint(src *State) *State { return p.checkpoint(src, false) }

// CheckpointImprecise is src.MarkAllScalarsImprecise followed by
// Checkpoint(src), the verifier's order when it stores a new checkpoint
// (is_state_visited), made in one walk of each frame's stack.
func (p *Pool) CheckpointImprecise(src *State) *State { return p.checkpoint(src, true) }

// checkpoint is Checkpoint, dropping src's precision marks first when
// imprecise is set (CheckpointImprecise).
func (p *Pool) checkpoint(src *State, imprecise bool) *State {
	s := p.state()
	p.fitHistory(s, src)
	s.copyAllButFrames(src)
	for i := 0; i <= int(src.CurFrame); i++ {
		s.Frames[i] = p.packedFrame()
		s.Frames[i].checkpointFrom(src.Frames[i], p, imprecise)
	}
	return s
}

// Resume returns the state to continue with when the path of cur has
// ended and pushed, a state Clone or ClonePacked made, resumes; cur and
// pushed must not be used afterwards. A dense pushed state is returned
// as it is, cur going back to the pool; a packed one is unpacked into
// cur's memory, which is warm, where new frames would touch fresh memory
// (frames of cur above pushed's go back to the pool).
func (p *Pool) Resume(cur, pushed *State) *State {
	if !pushed.packed() {
		p.Put(cur)
		return pushed
	}
	for i := range cur.Frames {
		switch f := cur.Frames[i]; {
		case i > int(pushed.CurFrame) && f != nil:
			p.PutFrame(f)
			cur.Frames[i] = nil
		case i <= int(pushed.CurFrame) && f == nil:
			cur.Frames[i] = p.frame()
		}
	}
	cur.CopyFrom(pushed)
	p.Put(pushed)
	return cur
}

// packed reports whether some frame of s is packed.
func (s *State) packed() bool {
	for i := 0; i <= int(s.CurFrame); i++ {
		if s.Frames[i].packed {
			return true
		}
	}
	return false
}

// Put gives s and its frames back to the pool. s must not be used
// afterwards.
func (p *Pool) Put(s *State) {
	if s == nil {
		return
	}
	for i, f := range s.Frames {
		if f != nil {
			p.PutFrame(f)
			s.Frames[i] = nil
		}
	}
	*s = State{Refs: s.Refs[:0], JmpHistory: s.JmpHistory[:0]}
	p.states = append(p.states, s)
}

// Frame returns an empty frame (zero registers, empty stack), for a call
// that pushes a new frame; initialise it with InitFrame.
func (p *Pool) Frame() *Frame {
	f := p.frame()
	f.ensureDense()
	sum := f.sum
	*f = Frame{stack: f.stack[:0], dense: f.dense, pregs: f.pregs[:0], sum: sum}
	*f.dense = [NumRegs]Reg{}
	return f
}

// frame pops a recycled frame for a working (dense) frame, or allocates
// one; a frame that was packed serves when no other is left (it has no
// register array: CopyFrom and InitFrame give it one). Its stack is empty
// and it has no summary, but its registers and other fields are left
// over: the caller overwrites them all.
func (p *Pool) frame() *Frame {
	if f := pop(&p.frames, &p.framesLow); f != nil {
		return f
	}
	if f := pop(&p.packedFrames, &p.packedLow); f != nil {
		return f
	}
	return newFrame()
}

// packedFrame pops a recycled frame that was packed, or allocates one
// (never a working frame's, whose stack it would waste), in frame's
// condition.
func (p *Pool) packedFrame() *Frame {
	if f := pop(&p.packedFrames, &p.packedLow); f != nil {
		return f
	}
	return &Frame{}
}

// pop removes and returns the last frame of *list, or nil, keeping *low
// the fewest frames the list held.
func pop(list *[]*Frame, low *int) *Frame {
	n := len(*list)
	if n == 0 {
		return nil
	}
	f := (*list)[n-1]
	*list = (*list)[:n-1]
	*low = min(*low, n-1)
	return f
}

// PutFrame gives f back to the pool, for a frame popped by a return. f must
// not be used afterwards. Only its stack and summary are emptied here; the
// rest is overwritten when the frame is handed out again.
func (p *Pool) PutFrame(f *Frame) {
	list := &p.frames
	if f.packed {
		list = &p.packedFrames
	}
	f.stack, f.pregs = f.stack[:0], f.pregs[:0]
	f.present, f.nslots, f.regPresent, f.packed = 0, 0, 0, false
	f.sum.reset()
	*list = append(*list, f)
}

// state pops a recycled state, or allocates one. Its frames are all nil.
func (p *Pool) state() *State {
	n := len(p.states)
	if n == 0 {
		return &State{}
	}
	s := p.states[n-1]
	p.states = p.states[:n-1]
	p.statesLow = min(p.statesLow, n-1)
	return s
}

// Trim drops recycled states and packed frames beyond maxSmall of each,
// and working frames and spare histories beyond maxWorking, so that a
// pool kept between verifications does not hold on to a large program's
// memory. States and packed frames hold nothing once trimmed (a few
// hundred bytes each); a working frame keeps its register array and
// stack (up to 7.7 KB).
func (p *Pool) Trim(maxSmall, maxWorking int) {
	if len(p.states) > maxSmall {
		clear(p.states[maxSmall:])
		p.states = p.states[:maxSmall]
	}
	trimFrames(&p.frames, maxWorking)
	trimFrames(&p.packedFrames, maxSmall)
	// Kept frames let go of their carved slices, whose blocks the next
	// verification carves again: every packed frame's, and those a
	// working frame inherited from its packed past. Only those handed
	// out since the last Trim can hold any (the lists are stacks, and
	// what lies below their low marks was not popped since): a small
	// program's pool holds the hundreds of states and frames a large one
	// left, and visiting them all was a tenth of its verification.
	for _, f := range p.packedFrames[min(p.packedLow, len(p.packedFrames)):] {
		f.stack, f.pregs, f.sum.words = nil, nil, nil
	}
	// A state keeps its history's memory for the next working copy, up
	// to maxWorking of them: a history of the heap has room for
	// workingHistCap entries (1.5 KB).
	lo := min(p.statesLow, len(p.states))
	for i, s := range p.states[lo:] {
		if p.hist.holds(s.JmpHistory) || lo+i >= maxWorking {
			s.JmpHistory = nil
		}
	}
	if len(p.histBufs) > maxWorking {
		clear(p.histBufs[maxWorking:])
		p.histBufs = p.histBufs[:maxWorking]
	}
	p.histBufs = slices.DeleteFunc(p.histBufs, p.hist.holds)
	for _, f := range p.frames[min(p.framesLow, len(p.frames)):] {
		if p.slots.holds(f.stack) {
			f.stack = nil
		}
		if p.regs.holds(f.pregs) {
			f.pregs = nil
		}
		if p.words.holds(f.sum.words) {
			f.sum.words = nil
		}
	}
	p.statesLow, p.framesLow, p.packedLow = len(p.states), len(p.frames), len(p.packedFrames)
	p.recycleBlocks()
}

// recycleBlocks gives the blocks of every slab back to the arena.
func (p *Pool) recycleBlocks() {
	p.slots.recycle()
	p.regs.recycle()
	p.words.recycle()
	p.hist.recycle()
}

// Abandon gives the blocks of p back to the arena after a verification
// that cannot end normally (a panic): p, and every state and frame it
// made, must not be used again. It touches neither states nor frames,
// which may be inconsistent.
func (p *Pool) Abandon() {
	p.recycleBlocks()
}

// trimFrames drops the frames of *list beyond max.
func trimFrames(list *[]*Frame, max int) {
	if len(*list) > max {
		clear((*list)[max:])
		*list = (*list)[:max]
	}
}
