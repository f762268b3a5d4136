package insn

import "sync"

// The analyses after check_cfg and check_cfg itself need per-instruction
// arrays only while they run: discovery states, walk stacks, the
// liveness equations' use, def and out sets, Tarjan's preorder and low
// numbers. Allocated per analysis they were a third of the time vercheck
// spends on a long program it walks little of (a 3,800-instruction
// tracing program of which 39 instructions run: the kernel's checks of
// every instruction are most of its verification too), and the collector
// made each allocation assist its marking. They come from a scratch kept
// between analyses instead; what the CFG keeps (flags, successors,
// postorder, components, live registers) is still its own.

// scratch holds the temporary arrays of one analysis.
type scratch struct {
	u8    []uint8
	ints  []int
	i32   [2][]int32
	u16   [3][]uint16
	u32   [2][]uint32
	large bool
}

// scratches keeps scratches between analyses.
var scratches = sync.Pool{New: func() any { return new(scratch) }}

// maxScratchInsns bounds the programs whose scratch is kept for the next
// analysis: a million-instruction program's would hold 40 MB.
const maxScratchInsns = 1 << 16

// getScratch returns a scratch for a program of n instructions.
func getScratch(n int) *scratch {
	sc := scratches.Get().(*scratch)
	sc.large = n > maxScratchInsns
	return sc
}

// putScratch gives sc back, unless it served a large program.
func putScratch(sc *scratch) {
	if sc == nil || sc.large {
		return
	}
	scratches.Put(sc)
}

// zeroed returns *buf cut to n zeroed elements, growing it when it is too
// small.
func zeroed[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
		return *buf
	}
	s := (*buf)[:n]
	clear(s)
	return s
}

// empty returns *buf emptied, with room for n elements.
func empty[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, 0, n)
	}
	return (*buf)[:0]
}
