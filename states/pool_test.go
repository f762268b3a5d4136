package states

import (
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"

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

// TestPoolKeepsBlocks: the blocks one verification carved packed stacks
// and registers from go back to the arena at Trim and serve the next
// verification without a fresh allocation, and a frame kept in the pool
// lets go of whatever it holds of them, so the next verification's
// checkpoints cannot alias a kept frame's memory.
func TestPoolKeepsBlocks(t *testing.T) {
	var p Pool
	src := realisticState(3, 64)
	var packed []*State
	for range 40 { // more than one block of slots
		packed = append(packed, p.ClonePacked(src))
	}
	if n := len(p.slots.used); n < 2 {
		t.Fatalf("40 packed states used %d slot blocks, want 2 or more", n)
	}
	// A working frame that inherits a packed frame's carved stack (the
	// pool hands out packed frames when no working one is left).
	for _, s := range packed {
		p.Put(s)
	}
	w := p.frame()
	if !p.slots.holds(w.stack) {
		t.Fatalf("a recycled packed frame's stack is not carved")
	}
	p.PutFrame(w)
	used := slices.Clone(p.slots.used)
	mapped := len(p.slots.mapped)
	p.Trim(256, 256)
	for _, f := range append(p.frames, p.packedFrames...) {
		if f.stack != nil && cap(f.stack) > 0 && sliceIn(f.stack, used) {
			t.Fatalf("a kept frame still holds a slice of a recycled block")
		}
	}
	if mapped == 0 || len(p.slots.used) != 0 || len(p.slots.mapped) != 0 {
		t.Fatalf("Trim left %d slot blocks in use (%d mapped before)", len(p.slots.used), mapped)
	}
	allocs := testing.AllocsPerRun(1, func() {
		p.slots.carve(8)
	})
	if allocs != 0 {
		t.Errorf("carving after Trim allocated %v times, want 0 (a block from the arena)", allocs)
	}
	// Recycled blocks hold the last verification's slots: a new packed
	// state reads as its own source all the same.
	other := realisticState(2, 40)
	for range 40 {
		packed := p.ClonePacked(other)
		if diff := cmp.Diff(slotsOf(other), slotsOf(packed), allowReg); diff != "" {
			t.Fatalf("packed copy in a recycled block reads differently (-src +packed):\n%s", diff)
		}
		if diff := cmp.Diff(regsOf(other), regsOf(packed), allowReg); diff != "" {
			t.Fatalf("packed copy's registers in a recycled block read differently (-src +packed):\n%s", diff)
		}
	}
	p.Trim(256, 256)
}

// TestPoolHistories: a packed copy's jump history is carved from the
// pool's blocks to its exact length, a working copy's comes from the heap
// with room to grow, and the heap ones circulate: a state recycled into a
// packed copy hands its history to the next working copy, so a push, a
// checkpoint and a pop allocate nothing in steady state. Trim leaves no
// kept state or spare history holding a carved one.
func TestPoolHistories(t *testing.T) {
	var p Pool
	src := realisticState(2, 8)
	for i := range 30 {
		src.JmpHistory = append(src.JmpHistory, JmpHistEntry{Idx: int32(100 + i), PrevIdx: int32(99 + i)})
	}
	packed := p.Checkpoint(src)
	if !p.hist.holds(packed.JmpHistory) || cap(packed.JmpHistory) != len(src.JmpHistory) {
		t.Errorf("a checkpoint's history is not carved to its length (cap %d, len %d)", cap(packed.JmpHistory), len(src.JmpHistory))
	}
	work := p.Clone(src)
	if p.hist.holds(work.JmpHistory) || cap(work.JmpHistory) < workingHistCap {
		t.Errorf("a working copy's history is carved or has room for %d entries, want %d on the heap", cap(work.JmpHistory), workingHistCap)
	}
	for _, c := range []*State{packed, work} {
		if diff := cmp.Diff(src.JmpHistory, c.JmpHistory); diff != "" {
			t.Errorf("copied history differs (-src +copy):\n%s", diff)
		}
	}
	p.Put(work)
	p.Put(packed)
	// A path ends (its working state goes back), a checkpoint takes that
	// state, and a push needs a working copy again.
	allocs := testing.AllocsPerRun(20, func() {
		p.Put(p.Clone(src))
		p.Put(p.ClonePacked(src))
	})
	if allocs != 0 {
		t.Errorf("Clone+Put+ClonePacked+Put allocated %v times, want 0", allocs)
	}
	p.Put(p.ClonePacked(src)) // a state holding a carved history, kept
	p.Trim(256, 256)
	for _, s := range p.states {
		if s.JmpHistory != nil && p.hist.holds(s.JmpHistory) {
			t.Fatalf("a kept state holds a carved history")
		}
	}
	if len(p.hist.used) != 0 {
		t.Fatalf("Trim left %d history blocks in use", len(p.hist.used))
	}
}

// TestArenaRelease: the arena hands a block back out before mapping a new
// one, and unmaps its free blocks only when none was asked for during the
// idle period.
func TestArenaRelease(t *testing.T) {
	var a blockArena
	b := a.get()
	if b == nil {
		t.Skip("mmap refused: blocks come from the heap")
	}
	unsafe.Slice((*byte)(b), blockBytes)[blockBytes-1] = 7
	a.put([]unsafe.Pointer{b})
	if got := a.get(); got != b {
		t.Fatalf("get after put mapped a new block")
	}
	a.put([]unsafe.Pointer{b})
	if n := a.release(time.Hour); n != 0 {
		t.Fatalf("release unmapped %d blocks while the arena was in use", n)
	}
	if n := a.release(0); n != 1 || a.mapped != 0 || len(a.free) != 0 {
		t.Fatalf("release unmapped %d blocks, %d still mapped, %d free; want 1, 0, 0", n, a.mapped, len(a.free))
	}
}

// TestArenaReleaseCold: at each collection the arena unmaps the free
// blocks nothing asked for since the collection before the last one, the
// bottom of its free list, and keeps those asked for since.
func TestArenaReleaseCold(t *testing.T) {
	var a blockArena
	var blocks []unsafe.Pointer
	for range 4 {
		b := a.get()
		if b == nil {
			t.Skip("mmap refused: blocks come from the heap")
		}
		blocks = append(blocks, b)
	}
	a.put(blocks)
	step := func(what string, want, wantFree int) {
		t.Helper()
		if n := a.releaseCold(); n != want || len(a.free) != wantFree || a.mapped != wantFree {
			t.Fatalf("%s: releaseCold unmapped %d, %d free, %d mapped; want %d, %d, %d", what, n, len(a.free), a.mapped, want, wantFree, wantFree)
		}
	}
	step("first collection", 0, 4)
	top := a.get() // the top block is used again
	a.put([]unsafe.Pointer{top})
	step("second collection, one block used since the first", 0, 4)
	step("third collection, three blocks unused for two intervals", 3, 1)
	if a.free[0] != top {
		t.Fatal("the block used since was unmapped, not the cold ones")
	}
	step("fourth collection", 1, 0)
	step("fifth collection, nothing free", 0, 0)

	// Collections that raise no new heap high only roll the count:
	// the blocks stay until one that does.
	b := a.get()
	a.put([]unsafe.Pointer{b})
	a.rollCold()
	a.rollCold()
	a.rollCold()
	if len(a.free) != 1 || a.mapped != 1 {
		t.Fatalf("rollCold unmapped: %d free, %d mapped; want 1, 1", len(a.free), a.mapped)
	}
	step("a collection after idle rolls", 1, 0)
}

// TestBlockTypesPointerFree: what the arena's blocks hold must not hide a
// pointer from the collector (the package's init refuses to start
// otherwise); pointerFree itself tells pointers apart.
func TestBlockTypesPointerFree(t *testing.T) {
	type withPtr struct {
		a int
		b *int
	}
	type withSlice struct{ s []int }
	tests := []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[Slot](), true},
		{reflect.TypeFor[Reg](), true},
		{reflect.TypeFor[uint64](), true},
		{reflect.TypeFor[JmpHistEntry](), true},
		{reflect.TypeFor[[4]Scalar](), true},
		{reflect.TypeFor[withPtr](), false},
		{reflect.TypeFor[withSlice](), false},
		{reflect.TypeFor[[2]string](), false},
		{reflect.TypeFor[map[int]int](), false},
	}
	for _, tt := range tests {
		if got := pointerFree(tt.t); got != tt.want {
			t.Errorf("pointerFree(%v) = %v, want %v", tt.t, got, tt.want)
		}
	}
}

// sliceIn reports whether x starts inside one of blocks.
func sliceIn[T any](x []T, blocks [][]T) bool {
	s := slab[T]{used: blocks}
	return s.holds(x)
}

// TestTrimAfterSmallVerification: a pool kept after a large verification
// holds hundreds of states and frames; the next, small one pops a few from
// the top of its lists, carves them new memory and gives them back. Trim
// visits only what was handed out since the last Trim, and still leaves no
// kept state or frame holding a slice of the blocks it recycles.
func TestTrimAfterSmallVerification(t *testing.T) {
	var p Pool
	src := realisticState(2, 16)
	for i := range 20 {
		src.JmpHistory = append(src.JmpHistory, JmpHistEntry{Idx: int32(100 + i), PrevIdx: int32(99 + i)})
	}
	var big []*State
	for range 200 {
		big = append(big, p.Checkpoint(src), p.Clone(src))
	}
	for _, s := range big {
		p.Put(s)
	}
	p.Trim(256, 256)
	for round := range 3 {
		var small []*State
		for range 3 + round {
			small = append(small, p.Checkpoint(src), p.ClonePacked(src), p.Clone(src))
		}
		w := p.frame() // a working frame popped with whatever it held
		p.PutFrame(w)
		for _, s := range small {
			p.Put(s)
		}
		slots, regs, words, hist := slices.Clone(p.slots.used), slices.Clone(p.regs.used), slices.Clone(p.words.used), slices.Clone(p.hist.used)
		if len(slots) == 0 || len(regs) == 0 || len(words) == 0 || len(hist) == 0 {
			t.Fatalf("round %d carved no memory from some slab (slots %d, regs %d, words %d, hist %d blocks)", round, len(slots), len(regs), len(words), len(hist))
		}
		p.Trim(256, 256)
		for i, f := range append(slices.Clone(p.frames), p.packedFrames...) {
			if sliceIn(f.stack, slots) || sliceIn(f.pregs, regs) || sliceIn(f.sum.words, words) {
				t.Fatalf("round %d: kept frame %d still holds a slice of a recycled block", round, i)
			}
		}
		for i, s := range p.states {
			if sliceIn(s.JmpHistory, hist) {
				t.Fatalf("round %d: kept state %d still holds a carved history", round, i)
			}
		}
	}
}
