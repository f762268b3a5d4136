package states

import (
	"reflect"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
	"unsafe"
)

// The blocks packed stacks, packed registers and summary words are carved
// from (see slab) live outside the Go heap, in memory the process maps
// itself, and go back to a process-wide free list when a verification
// ends (Pool.Trim).
//
// Why: they are most of what a verification allocates (a corpus pass
// allocated 168 MB, 92 MB of it slot blocks), and in the Go heap every
// fresh block brought the next collection closer, each collection
// marking the whole live heap (the kernel's BTF, the loaded objects).
// Keeping the blocks of one verification for the next in the heap took
// the collections away but kept the blocks in the live heap, which the
// collector's pacing doubles: a directory run's peak RSS grew past the
// 1.2 times its largest object that issue 13 allows. Outside the heap,
// a kept block is reused by the next verification at its own size, and
// the collector never sees it: a corpus pass allocates 74 MB instead of
// 169 and takes 5.5% less CPU; falco's largest object peaks at 358 MB
// instead of 595.
//
// The blocks hold no pointers (Slot, Reg, uint64 and JmpHistEntry:
// pointerFree checks it), so the collector need not scan them. A block is handed out as it
// was left: mapped memory is zero, and a carved slice is written whole
// before it is read (slab).
//
// Free blocks go back to the system at a collection that comes a second
// or more after the last block was asked for (the runtime collects at
// least every two minutes), so that a sweep keeps its blocks between
// programs and a loader that verified once does not keep them. Free
// blocks nothing asked for since the collection before the last one go
// back too, at a collection that raised the heap's goal to a new high
// (release of the cold blocks, heapGoalRose): in a sweep,
// a program that stores states by the hundred thousand (pyperf600, 1,300
// blocks) left its blocks free while the next large ones, whose memory is
// mostly the collector's heap (verifier_liveness_exp's liveness rows),
// grew the heap beside them, and the sweep of the 7.3 selftests peaked at
// 1.6-1.9 times its largest object; a sweep whose programs keep reusing
// the blocks (a corpus, pass after pass) keeps them.

// blockBytes is the size of a block: 1,024 stack slots, 1,117 registers,
// 12,288 summary words or 4,096 history entries (24 pages).
const blockBytes = 96 << 10

// blockArena is the process-wide free list of mapped blocks.
type blockArena struct {
	mu   sync.Mutex
	free []unsafe.Pointer
	// mapped counts the blocks mapped and not yet unmapped (free or
	// handed out).
	mapped int
	// lastGet is when a block was last handed out.
	lastGet time.Time
	// low is the fewest free blocks since the last collection, prevLow
	// the same for the interval before it: the blocks free[:min(low,
	// prevLow)] (the list is a stack) were not asked for during either.
	low, prevLow int
}

// arena is the blocks' free list.
var arena blockArena

// get returns a free block, mapping one when none is free; nil when the
// system refuses the mapping (the caller then allocates in the heap).
func (a *blockArena) get() unsafe.Pointer {
	a.mu.Lock()
	a.lastGet = time.Now()
	if n := len(a.free); n > 0 {
		b := a.free[n-1]
		a.free = a.free[:n-1]
		a.low = min(a.low, n-1)
		a.mu.Unlock()
		return b
	}
	a.mapped++
	a.mu.Unlock()
	b := mapBlock()
	if b == nil {
		a.mu.Lock()
		a.mapped--
		a.mu.Unlock()
	}
	return b
}

// put takes blocks back. Nothing may use them afterwards.
func (a *blockArena) put(blocks []unsafe.Pointer) {
	if len(blocks) == 0 {
		return
	}
	a.mu.Lock()
	a.free = append(a.free, blocks...)
	a.mu.Unlock()
}

// release unmaps every free block if none was asked for in the last idle
// period, and reports how many it unmapped.
func (a *blockArena) release(idle time.Duration) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.free) == 0 || time.Since(a.lastGet) < idle {
		return 0
	}
	n := len(a.free)
	for i, b := range a.free {
		unmapBlock(b)
		a.free[i] = nil
	}
	a.free = a.free[:0]
	a.mapped -= n
	a.low, a.prevLow = 0, 0
	return n
}

// releaseCold unmaps the free blocks nothing asked for since the
// collection before the last one (the bottom of the free list) and starts
// a new interval; it reports how many it unmapped. After a collection
// that raised the heap's goal to a new high the runtime calls it, after
// the others rollCold.
func (a *blockArena) releaseCold() int { return a.endInterval(true) }

// rollCold starts a new interval of releaseCold's count without
// unmapping anything.
func (a *blockArena) rollCold() { a.endInterval(false) }

// endInterval ends an interval of the count of blocks nothing asked for,
// unmapping those idle for two intervals when release is set, and
// reports how many it unmapped.
func (a *blockArena) endInterval(release bool) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	if release {
		n = min(a.low, a.prevLow, len(a.free))
	}
	for i, b := range a.free[:n] {
		unmapBlock(b)
		a.free[i] = nil
	}
	a.free = append(a.free[:0], a.free[n:]...)
	clear(a.free[len(a.free) : len(a.free)+n])
	a.mapped -= n
	a.prevLow, a.low = a.low-n, len(a.free)
	return n
}

// heapGoal is the collector's heap goal, read after each collection, and
// heapGoalHigh the highest seen.
var (
	heapGoal     = []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	heapGoalHigh uint64
)

// heapGoalRose reports whether the heap's goal after the last collection
// is the highest yet: the heap is taking memory the process never had,
// and free blocks left cold would add to the peak. A sweep that passes
// again over programs it verified (a benchmark) reaches no new high and
// keeps its blocks, which the next pass would otherwise map and fault in
// again (11,000 page faults a pass over the scale programs). Only the
// finalizer goroutine calls it.
func heapGoalRose() bool {
	metrics.Read(heapGoal)
	if heapGoal[0].Value.Kind() != metrics.KindUint64 {
		return true
	}
	if g := heapGoal[0].Value.Uint64(); g > heapGoalHigh {
		heapGoalHigh = g
		return true
	}
	return false
}

// releaseIdle is how long the process must not have asked for a block
// before a collection gives the free ones back to the system.
const releaseIdle = time.Second

// afterGC runs after each collection (a finalizer that arms itself again).
type afterGC struct{ _ [16]byte }

func armReleaseAfterGC() {
	runtime.SetFinalizer(new(afterGC), func(*afterGC) {
		switch {
		case arena.release(releaseIdle) > 0:
		case heapGoalRose():
			arena.releaseCold()
		default:
			arena.rollCold()
		}
		armReleaseAfterGC()
	})
}

func init() {
	for _, t := range []reflect.Type{reflect.TypeFor[Slot](), reflect.TypeFor[Reg](), reflect.TypeFor[uint64](), reflect.TypeFor[JmpHistEntry]()} {
		if !pointerFree(t) {
			// Memory the collector does not scan must hold no pointer.
			panic("states: " + t.String() + " holds pointers and cannot live in mapped blocks")
		}
	}
	armReleaseAfterGC()
}

// pointerFree reports whether values of t hold no pointer.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}
