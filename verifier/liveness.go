package verifier

import (
	"math/bits"
	"slices"
	"strconv"
	"unsafe"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Stack liveness (the 6.18 kernel's path-insensitive, call-chain-sensitive
// analysis).
//
// While simulating, every stack access is recorded against the function
// instance running it (one instance per call chain): may-read marks (any
// visit read the slot) and must-write marks (every visit wrote the whole
// slot). A backward data-flow over each instance's subprogram turns them
// into "may this slot still be read at or after insn i". A completed
// checkpoint is cleaned with that answer: dead slots become invalid and so
// match anything. As in the kernel, the answer is recomputed only at the
// end of every path and when a function returns (bpf_update_live_stack),
// so a checkpoint cleaned in between does not see the marks recorded
// since on the current path.
//
// Calls connect instances both ways. What a callee may read of its
// callers' stacks at its entry is read by the call instruction, and what
// it writes of them on every path through it before its exit (its
// entry's must_write_acc) is written by the call instruction: a slot the
// callee always overwrites is dead before the call. The second transfer
// is an intersection that never grows back (the kernel commits it like an
// instruction's own writes, the first time as it is, later narrowed), so
// its value depends on when each transfer happens: as in the kernel, an
// instance is solved and transfers to its caller only when a mark changed
// its equations ("updated"), innermost instance of the current chain
// first.

// liveInstance is one function instance: a subprogram reached through one
// call chain. Masks have one bit per 8-byte slot; frame f's masks are for
// the stack of frame f of the chain (f <= depth). Per-insn arrays cover the
// subprogram's instructions only, indexed from base (its first insn): a
// program of many calls has thousands of instances, and arrays over the
// whole program made their memory grow with the program's length times
// their number.
type liveInstance struct {
	subprog int
	depth   int
	base    int
	// block holds the mask arrays of the frames that have marks, one
	// group of four rows of len(visited) words per frame: mayRead(f),
	// mustWrite(f), live(f) and writeAcc(f). group[f] is one more than
	// frame f's group in block, 0 while f has none: a frame is given its
	// rows at its first read or must-write mark (writableRow). Until then
	// all four of its rows are zero and stay so (the live masks are
	// reads flowing backwards, the write masks an intersection that
	// includes the insn's own must-write marks), so a reader is handed
	// the owner's zero row and the solver skips the frame. Most outer
	// frames of a deep chain are never marked: verifier_liveness_exp's
	// 1.6 million instance frames carved 230 MB of rows a pass, zeroed
	// and then only read. One block where slices of rows were 24 bytes
	// of pointers per row for the collector to scan (a fifth of the
	// bytes that program allocated).
	block []uint64
	group [states.MaxCallFrames]uint8
	// groups is the number of groups block holds.
	groups uint8
	// visited holds, per insn, insnVisited once its marks were first
	// committed, with insnMustWrites while some frame's must-write mask
	// there may be non-zero.
	visited []uint8
	// updated is the kernel's flag of the same name: a mark changed the
	// equations since the last solve (a read not yet live, a must-write
	// mask set or narrowed). Only an updated instance transfers to its
	// caller.
	updated bool
	// writeDropped says a must-write mask narrowed since the last solve:
	// writeAcc, a least fixed point, is then recomputed from zero.
	writeDropped bool
	// key is the instance's chain (its links: callsites).
	key chainID
	// caller is the instance of the chain without its last call (nil for
	// depth 0), looked up once.
	caller *liveInstance
	// owner holds the instance, whose dirty list it joins.
	owner *stackLiveness
	// dirty is set when the marks changed since the last solve; a dirty
	// instance is on its owner's dirty list.
	dirty bool
	// pending has bit i-base set when an input of insn i's equation (its
	// marks, or the live mask of a successor) changed since insn i was
	// last evaluated: the solver re-evaluates only those.
	pending []uint64
	// kernelLog is kept at log level 2 only (see logUpdateInstance).
	kernelLog *liveLog
}

// Bits of liveInstance.visited. A visited insn without must-write marks,
// most of them, commits nothing (an intersection with an empty mask stays
// empty), so commitStackWrites skips its frames without reading them.
const (
	insnVisited    uint8 = 1 << iota // the insn's marks were committed once
	insnMustWrites                   // some frame's must-write mask may be non-zero
)

// liveLog is the kernel's own copy of an instance's solution, which
// update_instance logs the changes of at level 2: solveInstance skips
// equations whose inputs did not change and sweeps in instruction order,
// where the kernel re-evaluates every instruction of the subprogram, in
// postorder, until a sweep changes nothing, and keeps must_write_acc for
// the innermost frame too. Both reach the same masks; the log shows the
// kernel's sweeps.
type liveLog struct {
	live [][]uint64 // [frame][insn-base]: live_before
	acc  [][]uint64 // [frame][insn-base]: must_write_acc
}

// setPending marks insn i for re-evaluation, and so the instance for the
// next solve.
func (inst *liveInstance) setPending(i int) {
	if !inst.covers(i) {
		return
	}
	i -= inst.base
	inst.pending[i>>6] |= 1 << (i & 63)
	if !inst.dirty {
		inst.dirty = true
		inst.owner.dirtyList = append(inst.owner.dirtyList, inst)
	}
}

// covers reports whether insn i is one of the instance's subprogram.
// Two callbacks a call site may take (a callback chosen by a branch) share
// the call chain, and so the instance: the marks of the other
// subprogram's instructions are dropped, as the solver, which sweeps the
// instance's own subprogram, never read them.
func (inst *liveInstance) covers(i int) bool {
	j := i - inst.base
	return j >= 0 && j < len(inst.visited)
}

// prevPending returns the highest pending insn in [lo, i], or -1.
func prevPending(pending []uint64, i, lo int) int {
	for i >= lo {
		w := pending[i>>6] & (^uint64(0) >> (63 - uint(i&63)))
		if w != 0 {
			j := i&^63 + 63 - bits.LeadingZeros64(w)
			if j >= lo {
				return j
			}
			return -1
		}
		i = i&^63 - 1
	}
	return -1
}

// stackLiveness holds every instance of one verification.
type stackLiveness struct {
	instances chainTable
	// mem holds the instances and their arrays.
	mem liveMemory
	// zeros is the row of a frame without rows (liveInstance.row), as
	// long as the longest subprogram an instance covers; never written.
	zeros []uint64
	// dirtyList holds the instances whose marks changed since their last
	// solve: only the current chain's in practice (see
	// updateStackLiveness), never every instance, of which a program of
	// many calls has thousands.
	dirtyList []*liveInstance
	// spareList is the memory of the list updateStackLiveness emptied
	// last.
	spareList []*liveInstance
	// last is the instance instanceFor returned last, checked first.
	last  *liveInstance
	dirty bool
	// chain is the instance of the current state's call chain while
	// chainKnown. The chain changes only where a frame is pushed or
	// popped, when the walk switches paths and when it starts, which
	// clear chainKnown (chainMayChange): the insns between take chain as
	// it is, where comparing the chain with the state's frames at every
	// insn showed in profiles.
	chain      *liveInstance
	chainKnown bool
	// chainBase and chainVisited are chain's base and visited array,
	// copied when chain is looked up, for commitStackWrites' test.
	chainBase    int
	chainVisited []uint8
	// curWrites are the whole slots written by the insn being simulated,
	// per frame, committed as must-write marks when it completes.
	curWrites [states.MaxCallFrames]uint64
	// wrote says curWrites may hold a mark: most insns write no slot,
	// and clearing the array at each one showed in profiles.
	wrote bool
	// recording says the insn being simulated records its marks in
	// chain's instance (beginInsn to commitStackWrites; a call insn
	// stops it). A flag, not a pointer set and cleared at every insn,
	// whose write barriers kept beginInsn from inlining.
	recording bool
	// succStart/succList hold every insn's successors (CSR form), and
	// predStart/predList every insn's predecessors.
	succStart []int32
	succList  []int32
	predStart []int32
	predList  []int32
	// single holds, for an insn with exactly one successor and exactly
	// one predecessor (straight-line code, most insns), the two; for any
	// other insn, succ is -1. The solver reads it first: one load in
	// place of two lists.
	single []singleLink
}

// singleLink is an insn's only successor and only predecessor.
type singleLink struct{ succ, pred int32 }

// chainID names a call chain in stackLiveness.instances: its links
// (chainLink) and how many there are. A fixed-size key hashes and
// compares without the string a variable-length one was built into (and
// allocated anew for every instance stored).
type chainID struct {
	n     int32
	links [states.MaxCallFrames]int32
}

// chainTable finds an instance by its chain: open addressing over a
// power-of-two array, probed linearly from the chain's hash. A program of
// many call chains looks one up at most calls, returns and path switches
// (verifier_liveness_exp: a Go map of the 36-byte keys, hashed whole, was
// a sixth of its time). A slot keeps its instance's hash beside it, so
// that a probe reads an instance only when the hashes agree and growing
// the table reads none: each read is a cache miss in a program of
// hundreds of thousands of instances.
type chainTable struct {
	slots []chainSlot
	n     int
}

// chainSlot is one slot of a chainTable: an instance (nil: free) and its
// chain's hash.
type chainSlot struct {
	hash uint64
	inst *liveInstance
}

// hash mixes id's links (only the first n count) into a word whose top
// bits are well mixed (a table indexes by them).
func (id *chainID) hash() uint64 {
	h := uint64(id.n)
	for _, c := range id.links[:id.n] {
		h = bits.RotateLeft64(h, 23) + uint64(uint32(c))
	}
	return h * 0x9e3779b97f4a7c15
}

// slot is the first slot of h's probe sequence: its top bits.
func (t *chainTable) slot(h uint64) uint64 {
	return h >> (64 - bits.TrailingZeros(uint(len(t.slots))))
}

// same reports whether id and o name the same chain.
func (id *chainID) same(o *chainID) bool {
	return id.n == o.n && slices.Equal(id.links[:id.n], o.links[:o.n])
}

// get returns the instance of chain id, or nil.
func (t *chainTable) get(id *chainID) *liveInstance {
	if t.n == 0 {
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	h := id.hash()
	for i := t.slot(h); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.inst == nil || sl.hash == h && sl.inst.key.same(id) {
			return sl.inst
		}
	}
}

// put adds inst, whose chain the table does not hold.
func (t *chainTable) put(inst *liveInstance) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.slots = make([]chainSlot, max(8, 2*len(old)))
		for _, o := range old {
			if o.inst != nil {
				t.insert(o)
			}
		}
	}
	t.insert(chainSlot{hash: inst.key.hash(), inst: inst})
	t.n++
}

// insert places sl in the first free slot of its probe sequence.
func (t *chainTable) insert(sl chainSlot) {
	mask := uint64(len(t.slots) - 1)
	i := t.slot(sl.hash)
	for t.slots[i].inst != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = sl
}

// chainIDOf is the key of the chain callsites.
func chainIDOf(callsites []int32) chainID {
	id := chainID{n: int32(len(callsites))}
	copy(id.links[:], callsites)
	return id
}

// instanceFor returns the instance of the chain of frames 0..depth of st.
func (e *env) instanceFor(st *states.State, depth int) *liveInstance {
	l := &e.stackLive
	prev := l.last
	if inst := prev; inst != nil {
		if inst.depth == depth && sameChain(inst.callsites(), st) {
			return inst
		}
		// A return asks for the caller of the chain it leaves.
		if c := inst.caller; c != nil && c.depth == depth && sameChain(c.callsites(), st) {
			l.last = c
			return c
		}
	}
	key := chainID{n: int32(depth + 1)}
	for i := 0; i <= depth; i++ {
		key.links[i] = chainLink(st.Frames[i])
	}
	if inst := l.instances.get(&key); inst != nil {
		l.last = inst
		return inst
	}
	sp := e.cfg.Subprogs[st.Frames[depth].SubProg]
	n := sp.End - sp.Start
	in := &carve(&l.mem.insts, 1, &l.mem.instsLen)[0]
	*in = liveInstance{subprog: int(st.Frames[depth].SubProg), depth: depth, base: sp.Start, owner: l}
	in.key = key
	if depth > 0 && prev != nil && prev.depth == depth-1 && sameChain(prev.callsites(), st) {
		// A call from the last instance asked for, as nearly every new
		// chain is: its caller, linked now rather than looked up in the
		// table at the first update (a cache miss per instance in
		// programs of hundreds of thousands of chains).
		in.caller = prev
	}
	in.visited = carve(&l.mem.bytes, n, &l.mem.bytesLen)
	// The instance and its arrays are carved from the verification's
	// chunks: programs with many call chains (one instance each) made
	// four allocations per frame, then four per instance
	// (verifier_liveness_exp: hundreds of thousands of instances, a third
	// of its time).
	in.pending = carve(&l.mem.words, (n+63)/64, &l.mem.wordsLen)
	if len(l.zeros) < n {
		l.zeros = make([]uint64, n)
	}
	if e.log.level >= 2 {
		in.kernelLog = &liveLog{}
		for f := 0; f <= depth; f++ {
			in.kernelLog.live = append(in.kernelLog.live, make([]uint64, n))
			in.kernelLog.acc = append(in.kernelLog.acc, make([]uint64, n))
		}
	}
	l.instances.put(in)
	l.last = in
	return in
}

// callsites returns the links of inst's chain (chainLink), outermost
// first.
func (inst *liveInstance) callsites() []int32 { return inst.key.links[:inst.key.n] }

// The rows of a frame's group (liveInstance.block).
const (
	rowMayRead = iota
	rowMustWrite
	rowLive
	rowWriteAcc
	rowsPerFrame
)

// row returns row r of frame f: read-only, the owner's zero row when f has
// no rows yet (see liveInstance.block).
func (inst *liveInstance) row(f, r int) []uint64 {
	n := len(inst.visited)
	g := int(inst.group[f])
	if g == 0 {
		return inst.owner.zeros[:n:n]
	}
	off := ((g-1)*rowsPerFrame + r) * n
	return inst.block[off : off+n : off+n]
}

// hasRows reports whether frame f has rows: some mark was set in it.
func (inst *liveInstance) hasRows(f int) bool { return inst.group[f] != 0 }

// writableRow returns row r of frame f for writing, giving the frame its
// rows first.
func (inst *liveInstance) writableRow(f, r int) []uint64 {
	if inst.group[f] == 0 {
		inst.addFrameRows(f)
	}
	return inst.row(f, r)
}

// addFrameRows gives frame f a group of zero rows: block is carved anew
// one group longer, the old groups copied (a frame gets its rows once,
// most instances one frame's).
func (inst *liveInstance) addFrameRows(f int) {
	l := inst.owner
	grown := carve(&l.mem.words, (int(inst.groups)+1)*rowsPerFrame*len(inst.visited), &l.mem.wordsLen)
	copy(grown, inst.block)
	inst.block = grown
	inst.groups++
	inst.group[f] = inst.groups
}

// mayRead returns frame f's may-read marks, per insn-base (read-only:
// writableRow writes them).
func (inst *liveInstance) mayRead(f int) []uint64 { return inst.row(f, rowMayRead) }

// mustWrite returns frame f's must-write marks, per insn-base; an insn's
// are valid when it is visited.
func (inst *liveInstance) mustWrite(f int) []uint64 { return inst.row(f, rowMustWrite) }

// live returns the slots of frame f live before each insn.
func (inst *liveInstance) live(f int) []uint64 { return inst.row(f, rowLive) }

// writeAcc returns, for an outer frame (f < depth), the slots written by
// insn i or by every path from it to the subprogram's exit
// (must_write_acc); at the entry it is what the call writes.
func (inst *liveInstance) writeAcc(f int) []uint64 { return inst.row(f, rowWriteAcc) }

// minChunkBytes and maxChunkBytes bound the chunks carve cuts from.
const (
	minChunkBytes = 512
	maxChunkBytes = 256 << 10
)

// liveMemory holds the chunks a verification's liveness instances and
// their arrays are carved from (carve). Instances live as long as the
// verification, so nothing is given back before it ends.
type liveMemory struct {
	insts                        []liveInstance
	words                        []uint64
	bytes                        []uint8
	instsLen, wordsLen, bytesLen int
}

// carve returns n zeroed elements cut from *chunk, with no capacity beyond
// n, starting a new chunk when it has too little left. Chunks double from
// minChunkBytes (at least two elements) up to maxChunkBytes (*size is the
// next chunk's length), so that a program of a few instances allocates
// little, one of many allocates rarely, and the unused tail of the last
// chunk stays small. The first chunk of instances was 64 of them, 11 KB:
// half of what a program of a dozen instructions allocated, one instance.
func carve[T any](chunk *[]T, n int, size *int) []T {
	if cap(*chunk)-len(*chunk) < n {
		elem := int(unsafe.Sizeof(*new(T)))
		limit := max(64, maxChunkBytes/elem)
		*size = min(max(2**size, 2, minChunkBytes/elem), limit)
		*chunk = make([]T, 0, max(*size, n))
	}
	l := len(*chunk)
	*chunk = (*chunk)[:l+n]
	return (*chunk)[l : l+n : l+n]
}

// sameChain reports whether callsites are the chain links of st's frames
// 0..len(callsites)-1.
func sameChain(callsites []int32, st *states.State) bool {
	for i, c := range callsites {
		if st.Frames[i] == nil || chainLink(st.Frames[i]) != c {
			return false
		}
	}
	return true
}

// chainLink is frame f's element of a call chain: its call site, or for the
// first frame of a verification pass (the main program, or a global
// function verified on its own) a negative number naming the subprogram,
// -1 for the main program. Like the kernel's call chains, which start at
// the subprogram, this keeps a global function's liveness apart from the
// main program's.
func chainLink(f *states.Frame) int32 {
	if f.CallSite == states.MainCallSite {
		return states.MainCallSite - f.SubProg
	}
	return f.CallSite
}

// markStackObjRead is mark_stack_slot_obj_read: a dynptr or iterator
// argument reads its slot, which the log then shows.
func (e *env) markStackObjRead(frame, spi int) {
	e.markStackRead(frame, spi)
	e.log.markSlotScratched(spi)
}

// markStackRead records that the current insn reads slot spi of frame.
func (e *env) markStackRead(frame, spi int) {
	if spi < 0 || spi >= 64 {
		return
	}
	if !e.stackLive.recording {
		return
	}
	inst := e.stackLive.chain
	if frame > inst.depth || !inst.covers(e.insnIdx) {
		return
	}
	if i := e.insnIdx - inst.base; inst.mayRead(frame)[i]&(1<<spi) == 0 {
		inst.writableRow(frame, rowMayRead)[i] |= 1 << spi
		if inst.live(frame)[i]&(1<<spi) == 0 {
			inst.updated = true
		}
		inst.setPending(e.insnIdx)
		e.stackLive.dirty = true
	}
}

// markStackWrite records that the current insn writes the whole slot spi
// of frame.
func (e *env) markStackWrite(frame, spi int) {
	if spi < 0 || spi >= 64 || frame >= states.MaxCallFrames {
		return
	}
	e.stackLive.curWrites[frame] |= 1 << spi
	e.stackLive.wrote = true
}

// commitStackWrites ends the simulation of insn insnIdx: its whole-slot
// writes narrow the insn's must-write marks (an intersection over visits).
// It runs after every insn but those endInsnQuick ends: an insn not yet
// visited, with must-write marks, or with writes to clear.
func (e *env) commitStackWrites(insnIdx int) {
	l := &e.stackLive
	if inst := l.chain; l.recording && inst.covers(insnIdx) {
		j := insnIdx - inst.base
		if v := inst.visited[j]; v&insnMustWrites != 0 {
			for f := 0; f <= inst.depth; f++ {
				// A frame without rows has no must-write mark to
				// narrow.
				if !inst.hasRows(f) {
					continue
				}
				if must := &inst.mustWrite(f)[j]; *must&^l.curWrites[f] != 0 {
					*must &= l.curWrites[f]
					inst.updated, inst.writeDropped = true, true
					inst.setPending(insnIdx)
					l.dirty = true
				}
			}
		} else if v == 0 {
			for f := 0; f <= inst.depth; f++ {
				if w := l.curWrites[f]; w != 0 {
					inst.writableRow(f, rowMustWrite)[j] = w
					inst.updated = true
					inst.visited[j] |= insnMustWrites
				}
			}
			inst.visited[j] |= insnVisited
			inst.setPending(insnIdx)
			l.dirty = true
		}
	}
	l.recording = false
	l.clearWrites()
}

// endInsnQuick ends the recording of insn insnIdx and reports true when
// commitStackWrites has nothing else to do: the insn wrote no slot and is
// a visited insn of the chain's instance without must-write marks (most
// insns). An insn that stopped the recording (a call) is ended the same
// way, as commitStackWrites would. It runs after every insn and inlines
// into the main loop: it reads chain's base and visited array from the
// copies in stackLiveness (commitStackWrites, called at every insn, cost
// some 25 instructions per insn).
func (l *stackLiveness) endInsnQuick(insnIdx int) bool {
	if j := uint(insnIdx - l.chainBase); !l.wrote && j < uint(len(l.chainVisited)) && l.chainVisited[j] == insnVisited {
		l.recording = false
		return true
	}
	return false
}

// clearWrites empties curWrites, writing it only when it may hold a mark.
func (l *stackLiveness) clearWrites() {
	if l.wrote {
		l.curWrites = [states.MaxCallFrames]uint64{}
		l.wrote = false
	}
}

// beginInsn notes the instance of the insn about to be simulated: the
// current chain's, looked up again only after chainMayChange. It runs
// before every insn and inlines (beginInsnSlow does the lookup).
func (e *env) beginInsn() {
	l := &e.stackLive
	if !l.chainKnown || l.wrote {
		e.beginInsnSlow()
	}
	l.recording = true
}

// beginInsnSlow is beginInsn's lookup of the chain's instance, and the
// clearing of writes a rejected insn left.
func (e *env) beginInsnSlow() {
	l := &e.stackLive
	if !l.chainKnown {
		l.chain = e.instanceFor(e.cur, int(e.cur.CurFrame))
		l.chainKnown = true
		l.chainBase, l.chainVisited = l.chain.base, l.chain.visited
	}
	l.clearWrites()
}

// chainMayChange says the current state's call chain may change before
// the next insn. Its callers are every place that changes the current
// state's frames: a call entering a function or a callback, a return from
// one (an exit, or the hidden exit of a failed LD_ABS or tail call in a
// subprogram), a path switch, the start of a walk.
func (l *stackLiveness) chainMayChange() { l.chainKnown = false }

// updateStackLiveness is bpf_update_live_stack: the instances of the
// current state's call chain, innermost first, are solved where their
// marks changed, and each updated one transfers its entry's reads and
// writes of the outer frames to its caller's call insn, which the next
// (outer) step then sees. Marks are only ever recorded in the current
// chain's instances, and every path end, return and path switch updates
// first, so no other instance has changed; any that has is solved after
// the chain, as a safety net.
func (e *env) updateStackLiveness() {
	l := &e.stackLive
	if !l.dirty {
		return
	}
	st := e.cur
	// The outer instances are the callers of the innermost, linked at
	// their first update.
	inst := e.instanceFor(st, int(st.CurFrame))
	for k := int(st.CurFrame); k >= 0; k-- {
		if k > 0 && inst.caller == nil {
			inst.caller = e.instanceFor(st, k-1)
		}
		e.solveAndPropagate(inst)
		inst = inst.caller
	}
	for len(l.dirtyList) > 0 {
		// Solving may list more instances: they go to the spare
		// list, and the two lists swap (a new list each time was a
		// tenth of what verifier_liveness_exp allocated).
		batch := l.dirtyList
		l.dirtyList = l.spareList[:0]
		for _, inst := range batch {
			e.solveAndPropagate(inst)
		}
		clear(batch)
		l.spareList = batch[:0]
	}
	l.dirty = false
}

// solveAndPropagate solves inst if its marks changed and, if they changed
// its equations, transfers its entry to its caller (update_instance).
func (e *env) solveAndPropagate(inst *liveInstance) {
	if inst.dirty {
		inst.dirty = false
		e.solveInstance(inst)
	}
	if inst.updated {
		if inst.kernelLog != nil {
			e.logUpdateInstance(inst)
		}
		inst.updated, inst.writeDropped = false, false
		e.propagateToCaller(inst)
	}
}

// logUpdateInstance logs update_instance's solution of inst at level 2:
// after each instruction whose masks the kernel prints (it reads or
// writes the stack, starts the subprogram or is a prune point), the
// slots its live_before and must_write_acc gained or lost in the sweep
// ("(0) frame 0 insn 3 +live -8"), and then the number of sweeps.
func (e *env) logUpdateInstance(inst *liveInstance) {
	kl := inst.kernelLog
	if inst.writeDropped {
		for f := range kl.acc {
			clear(kl.acc[f])
		}
	}
	chain := inst.kernelChain()
	order := e.cfg.Postorder(inst.subprog)
	start := e.cfg.Subprogs[inst.subprog].Start
	e.successors(0) // build the successor table
	sweeps := 0
	for changed := true; changed; {
		sweeps++
		changed = false
		for f := 0; f <= inst.depth; f++ {
			for _, i := range order {
				if e.logUpdateInsn(inst, chain, f, int(i), start) {
					changed = true
				}
			}
		}
	}
	e.log.printf("%s live stack update done in %d iterations\n", chain, sweeps)
}

// logUpdateInsn is update_insn on the kernel's copy of inst's masks: insn
// i of frame f, which it reports changed. An exit, without successors,
// keeps its masks.
func (e *env) logUpdateInsn(inst *liveInstance, chain string, f, i, start int) bool {
	l := &e.stackLive
	succ := l.succList[l.succStart[i]:l.succStart[i+1]]
	if len(succ) == 0 {
		return false
	}
	kl, j := inst.kernelLog, i-inst.base
	after, acc := uint64(0), ^uint64(0)
	for _, s := range succ {
		after |= kl.live[f][int(s)-inst.base]
		acc &= kl.acc[f][int(s)-inst.base]
	}
	read, write := inst.mayRead(f)[j], inst.mustWrite(f)[j]
	acc |= write
	before := after&^write | read
	if read != 0 || write != 0 || i == start || e.cfg.PrunePoint(i) {
		e.log.maskChange(chain, "live", f, i, kl.live[f][j], before)
		e.log.maskChange(chain, "written", f, i, kl.acc[f][j], acc)
	}
	changed := before != kl.live[f][j] || acc != kl.acc[f][j]
	kl.live[f][j], kl.acc[f][j] = before, acc
	return changed
}

// kernelChain formats inst's call chain as the kernel's fmt_callchain:
// the call sites of its frames but the first, then the start of its
// subprogram ("(0)" for the main program, "(20,25)" for a function at 25
// called from 20).
func (inst *liveInstance) kernelChain() string {
	b := []byte{'('}
	for _, c := range inst.callsites()[1:] {
		b = strconv.AppendInt(b, int64(c), 10)
		b = append(b, ',')
	}
	b = strconv.AppendInt(b, int64(inst.base), 10)
	return string(append(b, ')'))
}

// propagateToCaller is propagate_to_outer_instance: the outer frames' live
// slots at inst's entry are read by its caller's call insn, and the slots
// every path through inst writes are written by it, narrowing what earlier
// transfers set (commit_stack_write_marks).
func (e *env) propagateToCaller(inst *liveInstance) {
	if inst.depth == 0 {
		return
	}
	caller := inst.caller
	if caller == nil {
		id := chainIDOf(inst.callsites()[:inst.depth])
		caller = e.stackLive.instances.get(&id)
		inst.caller = caller
	}
	cs := int(inst.callsites()[inst.depth])
	if caller == nil || !caller.covers(cs) {
		return
	}
	entry := e.cfg.Subprogs[inst.subprog].Start - inst.base
	j := cs - caller.base
	first := caller.visited[j]&insnVisited == 0
	changed := false
	for f := 0; f < inst.depth; f++ {
		if add := inst.live(f)[entry] &^ caller.mayRead(f)[j]; add != 0 {
			caller.writableRow(f, rowMayRead)[j] |= add
			if add&^caller.live(f)[j] != 0 {
				caller.updated = true
			}
			changed = true
		}
		w, must := inst.writeAcc(f)[entry], caller.mustWrite(f)[j]
		if !first {
			w &= must
		}
		if w != must {
			if must&^w != 0 {
				caller.writeDropped = true
			}
			caller.writableRow(f, rowMustWrite)[j] = w
			caller.updated = true
			changed = true
		}
		if w != 0 {
			caller.visited[j] |= insnMustWrites
		}
	}
	caller.visited[j] |= insnVisited
	if changed {
		caller.setPending(cs)
		e.stackLive.dirty = true
	}
}

// solveInstance runs the backward data-flow of one instance. Its result is
// that of sweeping the subprogram backwards until a sweep changes nothing,
// starting from the previous solution (the order matters: a first visit
// can narrow a mask, so the fixed point reached depends on the start and
// the order). Each sweep skips the insns whose equation has no changed
// input, which would only recompute their current value: an insn is
// re-evaluated in the same sweep when a successor below it changed, in
// the next one when the changed successor is above it (a back-edge),
// exactly as a full sweep would see it. An insn's kill set is its
// must-write mask, zero until it is visited. The outer frames' write
// masks (writeAcc) are a least fixed point, an intersection over
// successors: recomputed from zero after a must-write mask narrowed, as
// update_instance does; an insn without successors (an exit) keeps its
// masks, as update_insn skips it.
func (e *env) solveInstance(inst *liveInstance) {
	sp := e.cfg.Subprogs[inst.subprog]
	e.successors(0) // build the successor and predecessor tables
	l := &e.stackLive
	succStart, succList := l.succStart, l.succList
	predStart, predList := l.predStart, l.predList
	single := l.single
	pending := inst.pending
	base := inst.base
	if inst.writeDropped && inst.depth > 0 {
		for f := range inst.depth {
			if inst.hasRows(f) {
				clear(inst.writeAcc(f))
			}
		}
		for i := sp.Start; i < sp.End; i++ {
			inst.setPending(i)
		}
		inst.dirty = false
	}
	// An insn whose equation changed makes its predecessors pending.
	// They are insns of the subprogram (successors stay inside it), so
	// their bits are set here directly; the instance joins its owner's
	// dirty list once, after the sweeps, where the first setPending of
	// a predecessor would have put it (marked clean below, it is then
	// passed over there, as before).
	requeue := false
	// Frame 0's masks, the only ones of most instances (depth 0), are
	// kept at hand; the other frames' are evaluated by solveOtherFrames.
	live0, reads0, writes0 := inst.live(0), inst.mayRead(0), inst.mustWrite(0)
	top := sp.End - 1 - base
	for prevPending(pending, top, 0) >= 0 {
		for j := prevPending(pending, top, 0); j >= 0; j = prevPending(pending, j-1, 0) {
		next:
			pending[j>>6] &^= 1 << (j & 63)
			// The second slot of an ld_imm64 has no successors, no
			// predecessors and no marks (it is never simulated): its
			// live mask stays 0, and it needs no test of its own.
			i := j + base
			if one := single[i]; one.succ >= 0 && inst.depth == 0 {
				// Straight-line code in an instance of one frame.
				s, p := int(one.succ)-base, int(one.pred)-base
				if before := reads0[j] | live0[s]&^writes0[j]; before != live0[j] {
					live0[j] = before
					if k := uint(p); k < uint(len(inst.visited)) {
						requeue = true
						if p == j-1 {
							// The sweep's next insn: evaluated
							// at once, where marking it would
							// only have it found next.
							j = p
							goto next
						}
						pending[k>>6] |= 1 << (k & 63)
					}
				}
				continue
			}
			succ := succList[succStart[i]:succStart[i+1]]
			var after uint64
			for _, s := range succ {
				after |= live0[int(s)-base]
			}
			changed := false
			if before := reads0[j] | after&^writes0[j]; before != live0[j] {
				live0[j] = before
				changed = true
			}
			if inst.depth > 0 && solveOtherFrames(inst, j, succ) {
				changed = true
			}
			if changed {
				for _, p := range predList[predStart[i]:predStart[i+1]] {
					if k := uint(int(p) - base); k < uint(len(inst.visited)) {
						pending[k>>6] |= 1 << (k & 63)
						requeue = true
					}
				}
			}
		}
	}
	if requeue && !inst.dirty {
		inst.owner.dirtyList = append(inst.owner.dirtyList, inst)
	}
	inst.dirty = false
}

// solveOtherFrames evaluates, for an instance of more than one frame, the
// equations of insn base+j that solveInstance leaves: the live masks of
// frames 1..depth, and the write masks (writeAcc) of frames 0..depth-1
// where the insn has successors. It reports whether one changed.
func solveOtherFrames(inst *liveInstance, j int, succ []int32) bool {
	base := inst.base
	changed := false
	for f := 1; f <= inst.depth; f++ {
		// A frame without rows has only zero masks, its solution.
		if !inst.hasRows(f) {
			continue
		}
		live := inst.live(f)
		var after uint64
		for _, s := range succ {
			after |= live[int(s)-base]
		}
		if before := inst.mayRead(f)[j] | after&^inst.mustWrite(f)[j]; before != live[j] {
			live[j] = before
			changed = true
		}
	}
	if len(succ) == 0 {
		return changed
	}
	for f := 0; f < inst.depth; f++ {
		if !inst.hasRows(f) {
			continue
		}
		acc := inst.writeAcc(f)
		w := ^uint64(0)
		for _, s := range succ {
			w &= acc[int(s)-base]
		}
		if w |= inst.mustWrite(f)[j]; w != acc[j] {
			acc[j] = w
			changed = true
		}
	}
	return changed
}

// cleanLiveStates is clean_live_states: completed checkpoints at insn
// with the current call chain get their dead registers and stack slots
// reset, once. chain is cur.ChainKey().
func (e *env) cleanLiveStates(idx int, cur *states.State, chain uint64) {
	callsite := cur.Frames[cur.CurFrame].CallSite
	if !e.store.HasCleanable(int32(idx), callsite) || e.store.KnownFruitless(int32(idx), callsite, chain) {
		return
	}
	// fruitless says the walk cleaned nothing and met no other chain of
	// the same key (whose walks it says nothing of): the store may
	// remember it.
	fruitless := true
	e.store.Walk(int32(idx), callsite, func(sl *prune.Entry) bool {
		// The entry's copies of the insn, the call chain, the cleaned
		// flag, the branches being done and the loop's visit spare a
		// visit to most states: a state is read only once its entry
		// says it may be cleaned.
		if sl.Cleaned || sl.Insn != int32(idx) || sl.Chain != chain || !sl.Done() || e.entryIncomplete(sl) {
			return true
		}
		st := sl.State
		if st.Branches != 0 || int(st.InsnIdx) != idx || st.Cleaned {
			return true
		}
		fruitless = false
		if !st.SameCallsites(cur) {
			return true
		}
		e.cleanMasks = e.aliveMasks(st, e.cleanMasks[:0])
		if e.aliveFn == nil {
			e.aliveFn = e.aliveSlotsForCleaning
		}
		e.eq.AliveSlots = e.aliveFn
		st.Clean(&e.eq)
		e.store.MarkCleaned(sl)
		e.eq.AliveSlots = nil
		return true
	})
	if fruitless {
		e.store.NoteFruitlessClean(int32(idx), callsite, chain)
	}
}

// aliveSlotsForCleaning answers AliveSlots for the state being cleaned
// from the masks aliveMasks computed for it; a method value built once
// avoids a closure per state.
func (e *env) aliveSlotsForCleaning(frame, _ int) uint64 {
	return e.cleanMasks[frame]
}

// aliveMasks appends, for each frame of st, the slots that may still be
// read on some path from st. Frame f is asked of every instance of st's
// chain at or above f: the top one at st's insn, the outer ones at their
// call insn. As in the kernel's bpf_stack_slot_alive, an outer instance is
// asked right after a plain call, but before a call that calls a callback:
// the callback may run again, so what it reads at its entry (through its
// ctx pointer into the caller's stack) stays alive while it runs.
func (e *env) aliveMasks(st *states.State, masks []uint64) []uint64 {
	for f := 0; f <= int(st.CurFrame); f++ {
		masks = append(masks, 0)
	}
	for k := int(st.CurFrame); k >= 0; k-- {
		inst := e.instanceFor(st, k)
		pos := int(st.InsnIdx)
		if k < int(st.CurFrame) {
			pos = int(st.Frames[k+1].CallSite)
			if !e.cfg.CallsCallback(pos) {
				pos++
			}
		}
		if !inst.covers(pos) {
			continue
		}
		for f := 0; f <= k; f++ {
			masks[f] |= inst.live(f)[pos-inst.base]
		}
	}
	return masks
}

// hiddenExit returns the second successor of an instruction that may
// leave its subprogram without reaching an exit, or -1: with
// stablefix.HiddenExitLiveness, a tail call (which ends the subprogram
// when it succeeds) and an LD_ABS/LD_IND (which ends it when the load
// fails) lead to the subprogram's last exit too (check_cfg's
// visit_abnormal_return_insn), so what follows them is not all that
// must happen before the subprogram returns.
func (e *env) hiddenExit(i int) int {
	if e.opts.MissingFixes.Has(stablefix.HiddenExitLiveness) {
		return -1
	}
	if in := e.prog[i]; !in.IsTailCall() && !in.IsLdAbsOrInd() {
		return -1
	}
	sp := e.cfg.Subprogs[e.cfg.SubprogOf(i)]
	for k := sp.End - 1; k >= sp.Start; k-- {
		if x := e.prog[k]; x.IsJmpClass() && x.JmpOp() == insn.JmpExit && !x.Filler {
			return k
		}
	}
	return -1
}

// successors returns the instructions that may follow insn i within its
// subprogram, from a table built once per program.
func (e *env) successors(i int) []int32 {
	l := &e.stackLive
	if l.succStart == nil {
		n := len(e.prog)
		l.succStart = make([]int32, n+1)
		// Most instructions have one successor, jumps two: sized so that
		// the list seldom grows (each growth copies it whole).
		l.succList = make([]int32, 0, n+n/4)
		var buf []int
		for j := 0; j < n; j++ {
			l.succStart[j] = int32(len(l.succList))
			if e.prog[j].Filler {
				continue
			}
			buf = e.cfg.Successors(buf[:0], j)
			if exit := e.hiddenExit(j); exit >= 0 && !slices.Contains(buf, exit) {
				buf = append(buf, exit)
			}
			for _, s := range buf {
				l.succList = append(l.succList, int32(s))
			}
		}
		l.succStart[n] = int32(len(l.succList))
		// Predecessors, from the successors (counting sort).
		l.predStart = make([]int32, n+2)
		for _, s := range l.succList {
			l.predStart[s+2]++
		}
		for j := 2; j < n+2; j++ {
			l.predStart[j] += l.predStart[j-1]
		}
		l.predList = make([]int32, len(l.succList))
		for j := 0; j < n; j++ {
			for _, s := range l.succList[l.succStart[j]:l.succStart[j+1]] {
				l.predList[l.predStart[s+1]] = int32(j)
				l.predStart[s+1]++
			}
		}
		l.predStart = l.predStart[:n+1]
		l.single = make([]singleLink, n)
		for j := 0; j < n; j++ {
			l.single[j].succ = -1
			if succ, pred := l.succStart[j:j+2], l.predStart[j:j+2]; succ[1]-succ[0] == 1 && pred[1]-pred[0] == 1 {
				l.single[j] = singleLink{succ: l.succList[succ[0]], pred: l.predList[pred[0]]}
			}
		}
	}
	return l.succList[l.succStart[i]:l.succStart[i+1]]
}
