package prune

import (
	"sync"

	"github.com/vercheck/vercheck/states"
)

// MainCallSite is the call site of the outermost frame (the kernel's
// BPF_MAIN_FUNC, -1): the main program and each global subprogram verified
// on its own.
const MainCallSite int32 = states.MainCallSite

// Releaser takes back states the store no longer needs; *states.Pool
// satisfies it.
type Releaser interface {
	Put(*states.State)
}

var _ Releaser = (*states.Pool)(nil)

// BucketIndex returns the bucket of instruction insn reached in a frame
// whose call site is callsite, in a table of progLen buckets: the signed xor
// of the two, taken as unsigned, modulo progLen, as in Linux. A progLen
// below 1 is treated as 1.
func BucketIndex(insn, callsite int32, progLen int) int {
	n := uint32(max(progLen, 1))
	return int(uint32(insn^callsite) % n)
}

// Entry is one stored checkpoint with its pruning counters.
type Entry struct {
	// State is the checkpoint. The store owns it until it is released.
	State *states.State
	// Hit counts paths this checkpoint pruned; Miss counts comparisons
	// that failed while a new checkpoint was due.
	Hit, Miss int32
	// InFreeList marks an evicted checkpoint waiting to be released.
	InFreeList bool
	// Cleaned mirrors State.Cleaned, so that a bucket walk looking for
	// states to clean can skip cleaned ones without touching the state:
	// it is copied at Add and set by MarkCleaned.
	Cleaned bool
	// done records that the state had no open branch any more (Branches
	// 0, at Add or reported by BranchesDone), which made an uncleaned
	// entry count in its bucket's cleanable.
	done bool
	// Insn is the instruction the checkpoint was added at (Add's insn),
	// kept here so that bucket walks can skip the entries of colliding
	// instructions without touching their states.
	Insn int32
	// Chain is the state's call-chain key (states.State.ChainKey), kept
	// here for the same reason: a bucket holds the checkpoints of every
	// chain whose last call site is the same, and a program whose
	// functions are called from many chains compares only states of other
	// chains at most of its arrivals (verifier_liveness_exp: all 725k).
	Chain uint64
	// Quick answers comparisons against State that fail at a spilled
	// constant without reading the state (states.QuickMiss); the
	// verifier sets it after a miss, and cleaning the state drops it.
	Quick states.QuickMiss

	// prev and next link the entry into its bucket or the free list, and
	// next links free slots; noEntry ends a list.
	prev, next int32
	// bucket is the entry's bucket, or onFreeList.
	bucket int32
	// SCCVisit is the state's loop visit (states.State.SCCVisit, set
	// before the state is stored and never changed after), kept here so
	// that asking whether the state's loop still has back-edges to
	// propagate, asked of every done checkpoint a prune point compares or
	// may clean, does not read the state: inside a loop under
	// exploration, walks meet the same done checkpoints again and again
	// (falco's sendmmsg_x: 1.7M visits of cleanLiveStates, 1.66M of them
	// refused for this reason, each a cache miss on a cold state). It
	// fits in the entry's padding.
	SCCVisit int16
}

const (
	// noEntry ends a list of entry indices.
	noEntry int32 = -1
	// onFreeList is the bucket of an entry on the free list.
	onFreeList int32 = -1
	// chunkBits sizes the slab chunks: 1024 entries. Entries never move
	// once allocated, so *Entry stays valid while the slab grows.
	chunkBits = 10
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// bucket is one list of the table: its first entry, and how many of its
// entries may be cleaned: not cleaned yet, and done (no open branch below
// them). Both are kept together: a prune point reads both. A bucket whose
// entries are of more than one instruction is mixed: head is then
// mixedHead(i) for its record Store.mixed[i], and its entries are on
// their instruction's list there (see mixedBucket).
type bucket struct {
	head, cleanable int32
}

// mixedBucket holds the lists of a mixed bucket, one per instruction,
// each newest first, and how many entries they hold in all. A walk only
// compares the checkpoints of its own instruction and counts the others
// for max_states_per_insn, so it follows its instruction's list and
// counts the rest at once (Bucket.Skipped): where a function is called
// from many chains, its instructions collide with one another in every
// bucket (verifier_liveness_exp: 13 entries a walk, one of its
// instruction, each a cache line read only once the one before gave its
// link). The order of each instruction's list is the bucket's order
// restricted to that instruction, so walks see what they saw.
type mixedBucket struct {
	n     int32
	lists []insnList
}

// insnList is one instruction's list in a mixed bucket: its first entry
// and its length.
type insnList struct {
	insn, head, n int32
}

// mixedHead is the head of a bucket whose lists are Store.mixed[i]; below
// noEntry, so that a bucket's head is an entry, noEntry, or a mixed
// bucket's mark. mixedIndex is its inverse.
func mixedHead(i int) int32 { return -2 - int32(i) }

// mixedIndex is the index in Store.mixed of the mixed bucket whose head
// is head.
func mixedIndex(head int32) int { return int(-2 - head) }

// list returns insn's list in m, nil when m has no entry of insn. A mixed
// bucket holds a few instructions: a scan finds it.
func (m *mixedBucket) list(insn int32) *insnList {
	for i := range m.lists {
		if l := &m.lists[i]; l.insn == insn {
			return l
		}
	}
	return nil
}

// listFor returns insn's list in m, adding an empty one if needed.
func (m *mixedBucket) listFor(insn int32) *insnList {
	if l := m.list(insn); l != nil {
		return l
	}
	m.lists = append(m.lists, insnList{insn: insn, head: noEntry})
	return &m.lists[len(m.lists)-1]
}

// Stats are the store's counters.
type Stats struct {
	// TotalStates counts every checkpoint added (total_states).
	TotalStates int
	// PeakStates is peak_states, computed per the freeing policy's era
	// (see the package documentation).
	PeakStates int
	// MaxStatesPerInsn is the longest bucket walk (max_states_per_insn).
	MaxStatesPerInsn int
	// Explored and FreeList are the kernel's explored_states_size and
	// free_list_size: checkpoints in buckets and evicted ones not yet
	// released. Like the kernel, Release does not reset them.
	Explored, FreeList int
	// Backedges is the number of pending loop back-edge states.
	Backedges int
	// Live is the number of states the store holds right now.
	Live int
	// FreedEarly counts states released before the end; Evicted counts
	// evictions.
	FreedEarly, Evicted int
	// Hits and Misses are the totals of all entries' counters.
	Hits, Misses int
}

// Store holds the explored checkpoints of one verification. It is not safe
// for concurrent use.
type Store struct {
	policy  Policy
	pool    Releaser
	pending func(*states.State) bool

	chunks    [][]Entry
	used      int32 // slots handed out so far, including recycled ones
	freeSlots int32 // head of the recycled-slot list
	buckets   []bucket
	mixed     []mixedBucket // the lists of mixed buckets (bucket.head)
	freeHead  int32         // head of the free list

	stats Stats
	// legacyPeak is the pre-6.15 peak_states counter.
	legacyPeak int

	// fruitless remembers, per bucket, a cleaning walk that found
	// nothing to clean (see NoteFruitlessClean); nil until the first.
	fruitless []fruitlessWalk
	// backedgeDrops counts RemoveBackedges calls that dropped back-edges:
	// a loop left, whose done checkpoints may be cleaned from then on.
	backedgeDrops uint32
}

// fruitlessWalk is a bucket's record of its last cleaning walk that
// cleaned nothing, for the instruction and call chain it was made for,
// with what the bucket's cleanable entries were then (walkStamp, a value
// of stamp, which counts every entry the bucket's cleanable count takes
// in) and how many loops had been left (drops). While both are the same,
// a walk for that instruction and chain finds what that one found:
// nothing. An entry becomes cleanable only by being added done or by its
// last branch closing (both counted in stamp), and stops being blocked by
// its loop's pending back-edges only when the loop is left (drops);
// cleaning, eviction and new back-edges only take cleanable entries away.
type fruitlessWalk struct {
	stamp, walkStamp, drops uint32
	insn                    int32
	chain                   uint64
	set                     bool
}

// NewStore returns an empty store for a program of progLen raw instruction
// slots. Released states go to pool, which may be nil.
func NewStore(progLen int, p Policy, pool Releaser) *Store {
	s := &Store{
		policy:    p,
		pool:      pool,
		freeSlots: noEntry,
		freeHead:  noEntry,
		buckets:   make([]bucket, max(progLen, 1)),
	}
	for i := range s.buckets {
		s.buckets[i] = bucket{head: noEntry}
	}
	return s
}

// SetPending installs the check for pending loop back-edges (the kernel's
// incomplete_read_marks): under FreeBranches a state for which it reports
// true is not released early. Without it no state has pending back-edges.
func (s *Store) SetPending(f func(st *states.State) bool) { s.pending = f }

// Entry returns the entry at index idx, or nil if idx holds no state.
func (s *Store) Entry(idx int32) *Entry {
	if idx < 0 || idx >= s.used {
		return nil
	}
	e := s.at(idx)
	if e.State == nil {
		return nil
	}
	return e
}

// EntryOf returns the entry holding st, or nil when st is not stored (the
// current state of a path never is).
func (s *Store) EntryOf(st *states.State) *Entry {
	if st.StoreEntry == 0 {
		return nil
	}
	return s.at(st.StoreEntry - 1)
}

// IndexOf returns the slab index of the entry holding st, or -1.
func (s *Store) IndexOf(st *states.State) int32 {
	return st.StoreEntry - 1
}

func (s *Store) at(idx int32) *Entry {
	return &s.chunks[idx>>chunkBits][idx&chunkMask]
}

// Walk calls visit for the entries of the bucket of (insn, callsite),
// newest first, until visit returns false, and returns the walk's length
// as max_states_per_insn counts it: the entries visited and those passed
// over. The entries of other instructions share buckets: a mixed bucket
// passes over them without visiting them (they count all the same), any
// other visits them too, so the caller filters by e.Insn and the call
// sites. visit may evict the entry it is given (Miss), but no other.
func (s *Store) Walk(insn, callsite int32, visit func(e *Entry) bool) int {
	b := s.Bucket(insn, callsite)
	n := b.Skipped()
	for e := b.Next(); e != nil; e = b.Next() {
		n++
		if !visit(e) {
			break
		}
	}
	return n
}

// Bucket is Walk's walk without the callback: Next returns the entries of
// one bucket, newest first, then nil (of a mixed bucket, those of the
// walk's instruction), and Skipped counts the entries passed over. It
// reads an entry's link before returning the entry, so the caller may
// evict the entry it was given (Miss), but no other. is_state_visited's
// loop, the verifier's hottest, uses it to spare a call per entry.
type Bucket struct {
	s       *Store
	next    int32
	skipped int32
}

// Bucket starts a walk over the bucket of (insn, callsite).
func (s *Store) Bucket(insn, callsite int32) Bucket {
	head := s.buckets[BucketIndex(insn, callsite, len(s.buckets))].head
	if head >= noEntry {
		return Bucket{s: s, next: head}
	}
	return s.mixedWalk(head, insn)
}

// mixedWalk starts a walk over insn's list of the mixed bucket whose head
// is head, counting the bucket's other entries as skipped.
func (s *Store) mixedWalk(head, insn int32) Bucket {
	m := &s.mixed[mixedIndex(head)]
	b := Bucket{s: s, next: noEntry, skipped: m.n}
	if l := m.list(insn); l != nil {
		b.next, b.skipped = l.head, m.n-l.n
	}
	return b
}

// Next returns the walk's next entry, nil after the last.
func (b *Bucket) Next() *Entry {
	if b.next == noEntry {
		return nil
	}
	e := b.s.at(b.next)
	b.next = e.next
	return e
}

// Skipped is the number of entries of the bucket the walk passes over
// without handing them out: a mixed bucket's entries of other
// instructions. With those Next hands out, they are the walk's length.
func (b *Bucket) Skipped() int { return int(b.skipped) }

// BucketLen returns the number of entries in the bucket of (insn,
// callsite).
func (s *Store) BucketLen(insn, callsite int32) int {
	head := s.buckets[BucketIndex(insn, callsite, len(s.buckets))].head
	if head < noEntry {
		return int(s.mixed[mixedIndex(head)].n)
	}
	n := 0
	for i := head; i != noEntry; i = s.at(i).next {
		n++
	}
	return n
}

// HasCleanable reports whether the bucket of (insn, callsite) holds an
// entry whose Cleaned is false and whose state has no open branch
// (Branches 0, which BranchesDone reports). Without one, a walk looking
// for states to clean has nothing to find: the states of a loop still
// being explored, its open ancestors, are never cleaned, and a bucket of
// them was walked at every visit.
func (s *Store) HasCleanable(insn, callsite int32) bool {
	return s.buckets[BucketIndex(insn, callsite, len(s.buckets))].cleanable != 0
}

// KnownFruitless reports whether a cleaning walk of the bucket of (insn,
// callsite) for a state of call chain chain would clean nothing, as the
// last one did (NoteFruitlessClean) with nothing changed since: the
// bucket's done checkpoints all wait for their loop's back-edges, or
// belong to other chains or instructions. Inside a loop being explored
// its done checkpoints stay uncleaned until the loop is left, and every
// arrival walked them all (falco's sendmmsg_x: 467k of 489k walks
// cleaned nothing, 5.4M entries read).
func (s *Store) KnownFruitless(insn, callsite int32, chain uint64) bool {
	if s.fruitless == nil {
		return false
	}
	b := BucketIndex(insn, callsite, len(s.buckets))
	f := &s.fruitless[b]
	return f.set && f.insn == insn && f.chain == chain &&
		f.walkStamp == f.stamp && f.drops == s.backedgeDrops
}

// NoteFruitlessClean records that a cleaning walk of the bucket of (insn,
// callsite) for a state of call chain chain cleaned nothing.
func (s *Store) NoteFruitlessClean(insn, callsite int32, chain uint64) {
	if s.fruitless == nil {
		s.fruitless = make([]fruitlessWalk, len(s.buckets))
	}
	f := &s.fruitless[BucketIndex(insn, callsite, len(s.buckets))]
	f.walkStamp, f.drops, f.insn, f.chain, f.set = f.stamp, s.backedgeDrops, insn, chain, true
}

// countCleanable counts a new cleanable entry of bucket b.
func (s *Store) countCleanable(b int32) {
	s.buckets[b].cleanable++
	if s.fruitless != nil {
		s.fruitless[b].stamp++
	}
}

// MarkCleaned records that e's state was cleaned (e.State.Cleaned is now
// true). It does nothing for an entry already marked or not in a bucket.
func (s *Store) MarkCleaned(e *Entry) {
	if e.State == nil {
		return // a released slot
	}
	// Cleaning turns dead slots INVALID: the slot the answer names may
	// no longer be compared.
	e.Quick = states.QuickMiss{}
	if e.Cleaned || e.bucket == onFreeList {
		e.Cleaned = true
		return
	}
	e.Cleaned = true
	if e.done {
		s.buckets[e.bucket].cleanable--
	}
}

// NoteBucketLen records the length of a bucket walk that did not prune, for
// max_states_per_insn.
func (s *Store) NoteBucketLen(n int) {
	s.stats.MaxStatesPerInsn = max(s.stats.MaxStatesPerInsn, n)
}

// Hit counts a successful comparison against e.
func (s *Store) Hit(e *Entry) {
	e.Hit++
	s.stats.Hits++
}

// Miss counts a failed comparison against e and evicts e when it passes the
// drop threshold; it reports whether e was evicted (and possibly released:
// the caller must not use e afterwards). forceCheckpoint says the
// instruction is a force checkpoint; with open branches it uses ForceMul.
//
// The verifier calls Miss only when it will add a checkpoint at this visit.
// The kernel also tests the threshold after uncounted misses, but those
// never change the outcome: the counts are unchanged, and n could only
// change at a force checkpoint, where a checkpoint is always added.
func (s *Store) Miss(e *Entry, forceCheckpoint bool) bool {
	e.Miss++
	s.stats.Misses++
	if !s.policy.Evict || e.InFreeList {
		return false
	}
	mul, add := s.policy.MissMul, s.policy.MissAdd
	// e.done is whether the state's Branches reached 0 (Done), read
	// here without the state: a forced checkpoint's walk (a callback
	// call, an iterator's next) misses against every open iteration.
	if forceCheckpoint && !e.done {
		mul, add = s.policy.ForceMul, s.policy.ForceMul
	}
	if !evictAfter(e.Hit, e.Miss, mul, add) {
		return false
	}
	s.evict(e)
	return true
}

// evict takes e out of its bucket and frees it or parks it on the free list
// as the policy says.
func (s *Store) evict(e *Entry) {
	idx := s.unlink(e)
	if !e.Cleaned && e.done {
		s.buckets[e.bucket].cleanable--
	}
	s.stats.Explored--
	s.stats.Evicted++
	if s.policy.Freeing == FreeLivenessDone && e.State.Branches == 0 {
		// Pre-6.15: the state's exploration is finished, so nothing can
		// walk to it any more; release it without passing the free list.
		s.legacyPeak--
		s.release(idx, e)
		return
	}
	e.InFreeList = true
	e.bucket = onFreeList
	s.pushFront(&s.freeHead, idx, e)
	s.stats.FreeList++
	if s.policy.Freeing == FreeBranches {
		s.maybeFree(idx, e)
	}
}

// maybeFree releases e, which is on the free list, if no path below it is
// open and its loop has no pending back-edges.
func (s *Store) maybeFree(idx int32, e *Entry) {
	if !e.InFreeList || e.State.Branches != 0 {
		return
	}
	if s.pending != nil && s.pending(e.State) {
		return
	}
	s.unlink(e)
	s.stats.FreeList--
	s.release(idx, e)
}

// Done reports whether e's state has no open branch any more (Branches
// 0): what a bucket walk asks of every entry, answered without reading
// the state. A state whose last branch closed never gets another.
func (e *Entry) Done() bool { return e.done }

// BranchesDone tells the store that st.Branches reached 0: st may be
// cleaned from now on (HasCleanable), and under FreeBranches an evicted st
// is released now unless its loop has pending back-edges. The verifier
// must read st.Parent before calling it, and call it after its own
// loop-exit processing for st. It does nothing for a state the store does
// not hold.
func (s *Store) BranchesDone(st *states.State) {
	if st.StoreEntry == 0 {
		return
	}
	idx := st.StoreEntry - 1
	e := s.at(idx)
	if e.State == st && !e.done {
		e.done = true
		if !e.Cleaned && e.bucket != onFreeList {
			s.countCleanable(e.bucket)
		}
	}
	if s.policy.Freeing != FreeBranches {
		return
	}
	s.maybeFree(idx, e)
}

// Add stores st as a new checkpoint at the head of the bucket of (insn,
// callsite) and returns its entry. The store owns st from now on and seals
// it (states.State.Seal) unless it is sealed already (states.Pool.Checkpoint):
// its stack must not change any more except through Clean.
func (s *Store) Add(insn, callsite int32, st *states.State) *Entry {
	if !st.Sealed() {
		st.Seal()
	}
	idx := s.allocSlot()
	e := s.at(idx)
	*e = Entry{State: st, Insn: insn, Chain: st.ChainKey(), Cleaned: st.Cleaned, done: st.Branches == 0, SCCVisit: st.SCCVisit, bucket: int32(BucketIndex(insn, callsite, len(s.buckets)))}
	b := &s.buckets[e.bucket]
	if b.head >= 0 && s.at(b.head).Insn != insn {
		s.mix(b)
	}
	if b.head < noEntry {
		m := &s.mixed[mixedIndex(b.head)]
		l := m.listFor(insn)
		s.pushFront(&l.head, idx, e)
		l.n++
		m.n++
	} else {
		s.pushFront(&b.head, idx, e)
	}
	if !e.Cleaned && e.done {
		s.countCleanable(e.bucket)
	}
	st.StoreEntry = idx + 1
	s.stats.TotalStates++
	s.stats.Explored++
	s.stats.Live++
	s.legacyPeak++
	s.updatePeak()
	return e
}

// AddBackedge counts a loop back-edge state kept for later precision
// propagation (6.15+ peak accounting).
func (s *Store) AddBackedge() {
	s.stats.Backedges++
	s.updatePeak()
}

// PendingBackedges returns the number of back-edge states added and not
// yet removed.
func (s *Store) PendingBackedges() int { return s.stats.Backedges }

// RemoveBackedges drops n back-edge states when their loop is left.
func (s *Store) RemoveBackedges(n int) {
	if n > 0 {
		s.backedgeDrops++
	}
	s.stats.Backedges = max(s.stats.Backedges-n, 0)
	s.updatePeak()
}

// updatePeak raises the 6.15+ peak to explored + free list + back-edges.
func (s *Store) updatePeak() {
	s.stats.PeakStates = max(s.stats.PeakStates, s.stats.Explored+s.stats.FreeList+s.stats.Backedges)
}

// Stats returns the counters.
func (s *Store) Stats() Stats {
	st := s.stats
	if s.policy.Freeing == FreeLivenessDone {
		st.PeakStates = s.legacyPeak
	}
	return st
}

// Release returns every stored state to the pool and empties the store, as
// at the end of one verification pass. The counters are kept, as the
// kernel keeps them across the passes of one program; the store can be
// used for the next pass.
func (s *Store) Release() {
	for i := int32(0); i < s.used; i++ {
		e := s.at(i)
		if e.State != nil {
			e.State.StoreEntry = 0
			if s.pool != nil {
				s.pool.Put(e.State)
			}
		}
		*e = Entry{}
	}
	s.used = 0
	s.freeSlots = noEntry
	s.freeHead = noEntry
	for i := range s.buckets {
		s.buckets[i] = bucket{head: noEntry}
	}
	s.mixed = s.mixed[:0]
	s.stats.Live = 0
}

// chunkPool keeps released slab chunks (zeroed) between stores, so that
// verifying many small programs does not allocate a chunk each.
var chunkPool = sync.Pool{New: func() any { c := make([]Entry, chunkSize); return &c }}

// newChunk returns a zeroed chunk of chunkSize entries.
func newChunk() []Entry { return *chunkPool.Get().(*[]Entry) }

// Recycle ends the store's life: after Release, its slab chunks go back
// to a shared pool for the next store. The store must not be used again.
// Only the entries handed out since the last Release are cleared (Release
// has zeroed the others, and a chunk comes from the pool zeroed): clearing
// whole chunks of pointerful entries was an eighth of the time of
// verifying a 20-instruction program.
func (s *Store) Recycle() {
	for i, c := range s.chunks {
		clear(c[:min(max(int(s.used)-i*chunkSize, 0), chunkSize)])
		chunkPool.Put(&c)
		s.chunks[i] = nil
	}
	s.chunks = nil
	s.used = 0
}

// release returns e's state to the pool and recycles its slot. While loop
// back-edge states are pending, one of them may descend from e's state
// (the kernel counts no such reference): the state is then marked Freed
// and left to the collector, so that a walk up the back-edge's ancestors
// finds the mark rather than a recycled state.
func (s *Store) release(idx int32, e *Entry) {
	e.State.StoreEntry = 0
	if s.stats.Backedges > 0 {
		e.State.Freed = true
	} else if s.pool != nil {
		s.pool.Put(e.State)
	}
	*e = Entry{next: s.freeSlots}
	s.freeSlots = idx
	s.stats.Live--
	s.stats.FreedEarly++
}

// allocSlot returns a free slab index, growing the slab by one chunk when
// needed.
func (s *Store) allocSlot() int32 {
	if s.freeSlots != noEntry {
		idx := s.freeSlots
		s.freeSlots = s.at(idx).next
		return idx
	}
	idx := s.used
	if int(idx>>chunkBits) == len(s.chunks) {
		s.chunks = append(s.chunks, newChunk())
	}
	s.used++
	return idx
}

// listHead returns the head of the list e is on.
func (s *Store) listHead(e *Entry) *int32 {
	if e.bucket == onFreeList {
		return &s.freeHead
	}
	b := &s.buckets[e.bucket]
	if b.head < noEntry {
		return &s.mixed[mixedIndex(b.head)].list(e.Insn).head
	}
	return &b.head
}

// mix makes b, whose entries are of one instruction, a mixed bucket: its
// list becomes that instruction's list, in its order.
func (s *Store) mix(b *bucket) {
	n := int32(0)
	for i := b.head; i != noEntry; i = s.at(i).next {
		n++
	}
	m := mixedBucket{n: n, lists: []insnList{{insn: s.at(b.head).Insn, head: b.head, n: n}}}
	s.mixed = append(s.mixed, m)
	b.head = mixedHead(len(s.mixed) - 1)
}

// pushFront links e (at idx) at the front of the list starting at *head.
func (s *Store) pushFront(head *int32, idx int32, e *Entry) {
	e.prev = noEntry
	e.next = *head
	if *head != noEntry {
		s.at(*head).prev = idx
	}
	*head = idx
}

// unlink removes e from its list and returns its index. e.next is kept so
// that a Walk standing on e could still move on.
func (s *Store) unlink(e *Entry) int32 {
	if e.bucket != onFreeList {
		if b := &s.buckets[e.bucket]; b.head < noEntry {
			m := &s.mixed[mixedIndex(b.head)]
			m.n--
			m.list(e.Insn).n--
		}
	}
	var idx int32
	if e.prev != noEntry {
		p := s.at(e.prev)
		idx = p.next
		p.next = e.next
	} else {
		head := s.listHead(e)
		idx = *head
		*head = e.next
	}
	if e.next != noEntry {
		s.at(e.next).prev = e.prev
	}
	return idx
}
