package prune

import (
	"slices"
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
	// pos is the entry's position in its instruction's keys in its
	// bucket, when the bucket has keys (bucket.keys).
	pos int32
}

// Key is what a bucket walk reads of an entry before it decides whether to
// read the entry itself (Bucket.Next).
type Key struct {
	// Chain and Insn are the entry's (Entry.Chain, Entry.Insn).
	Chain uint64
	Insn  int32
	// ref is the entry's slab index shifted left once, with the entry's
	// done mark (Entry.Done) in bit 0; noEntry for a hole an eviction
	// left in a bucket's keys. Packed so that a key is 16 bytes, four
	// to a cache line.
	ref int32
}

// Done reports the entry's Entry.Done.
func (k Key) Done() bool { return k.ref&1 != 0 }

// Index is the entry's slab index (Store.Entry).
func (k Key) Index() int32 { return k.ref >> 1 }

// keyOf is e's key; idx is e's slab index.
func keyOf(e *Entry, idx int32) Key {
	k := Key{Chain: e.Chain, Insn: e.Insn, ref: idx << 1}
	if e.done {
		k.ref |= 1
	}
	return k
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
// them). Both are kept together: a prune point reads both. n counts the
// entries; keys, when not 0, is one more than the index of the bucket's
// keys in Store.keys, which a bucket gets when it reaches longBucket
// entries.
type bucket struct {
	head, cleanable int32
	n, keys         int32
}

// bucketKeys are a long bucket's entries' keys, grouped by instruction.
// A walk only compares the checkpoints of its own instruction: the others
// it passes over, counting them for max_states_per_insn. A long bucket
// hands out only its instruction's keys, newest first, and the number of
// the others (Bucket.Skipped): the walk of a bucket of many colliding
// instructions reads a few keys (verifier_liveness_exp: 13 entries a
// walk, one of its instruction, 8 million a pass). Keys lie side by side
// where entries lie anywhere in the slab, and a key says whether its
// entry needs reading: a checkpoint of another call chain is passed over
// without (725k a pass there). A short bucket has none: its walk compares
// most of what it visits, and keys would add a line to read.
type bucketKeys struct {
	groups []keyGroup
}

// keyGroup is the keys of one instruction's entries in a long bucket,
// oldest first. An evicted entry leaves a hole (Key.ref noEntry), which
// walks skip and Add closes once holes are half the keys.
type keyGroup struct {
	insn, holes int32
	keys        []Key
}

// group returns the group of insn, nil when the bucket has no entry of
// insn. Buckets hold entries of a few instructions: a scan finds it.
func (bk *bucketKeys) group(insn int32) *keyGroup {
	for i := range bk.groups {
		if g := &bk.groups[i]; g.insn == insn {
			return g
		}
	}
	return nil
}

// addGroup returns the group of insn, adding an empty one if needed.
func (bk *bucketKeys) addGroup(insn int32) *keyGroup {
	if g := bk.group(insn); g != nil {
		return g
	}
	bk.groups = append(bk.groups, keyGroup{insn: insn})
	return &bk.groups[len(bk.groups)-1]
}

// longBucket is the number of entries from which a bucket keeps keys.
const longBucket = 8

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
	keys      []bucketKeys // of the long buckets (bucket.keys)
	freeHead  int32        // head of the free list

	stats Stats
	// legacyPeak is the pre-6.15 peak_states counter.
	legacyPeak int
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

// Policy returns the store's policy.
func (s *Store) Policy() Policy { return s.policy }

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
// over. A short bucket visits every entry, those of colliding instructions
// too; a long one only insn's (see bucketKeys), so the caller filters by
// e.Insn and the call sites. visit may evict the entry it is given (Miss),
// but no other.
func (s *Store) Walk(insn, callsite int32, visit func(e *Entry) bool) int {
	b := s.Bucket(insn, callsite)
	n := b.Skipped()
	for k, ok := b.Next(); ok; k, ok = b.Next() {
		n++
		if !visit(b.Entry(k)) {
			break
		}
	}
	return n
}

// Bucket is Walk's walk without the callback: Next returns the keys of one
// bucket's entries, newest first, and Entry the entry of a key, so that a
// caller that decides from the key alone need not read the entry (see
// bucketKeys). The caller may evict the entry of the key it was given
// (Miss), but no other, and may not add to the store during the walk.
// is_state_visited's loop, the verifier's hottest, uses it to spare a call
// per entry.
type Bucket struct {
	s *Store
	// keys and i walk a long bucket's keys of the walk's instruction,
	// from keys[i-1] down; long tells it is one, and skipped counts
	// its entries of other instructions.
	keys    []Key
	i       int
	long    bool
	skipped int
	// next is the entry a short bucket's walk reads next.
	next int32
}

// Bucket starts a walk over the bucket of (insn, callsite).
func (s *Store) Bucket(insn, callsite int32) Bucket {
	b := &s.buckets[BucketIndex(insn, callsite, len(s.buckets))]
	if b.keys != 0 {
		w := Bucket{s: s, long: true, skipped: int(b.n)}
		if g := s.keys[b.keys-1].group(insn); g != nil {
			w.keys, w.i = g.keys, len(g.keys)
			w.skipped -= len(g.keys) - int(g.holes)
		}
		return w
	}
	return Bucket{s: s, next: b.head}
}

// Skipped is the number of entries of the bucket the walk passes over
// without handing them out: a long bucket's entries of other
// instructions. Counted with those Next hands out, they are the walk's
// length, max_states_per_insn's measure.
func (b *Bucket) Skipped() int { return b.skipped }

// Next returns the key of the walk's next entry; false after the last.
// A long bucket hands out the keys of the walk's instruction only, a short
// one every key (the caller compares the instruction).
func (b *Bucket) Next() (Key, bool) {
	if b.long {
		return b.nextKey()
	}
	if b.next == noEntry {
		return Key{}, false
	}
	// The link is read before the entry is handed out: the caller may
	// evict it.
	idx := b.next
	e := b.s.at(idx)
	b.next = e.next
	return keyOf(e, idx), true
}

// nextKey is Next for a long bucket, kept out of line so that Next
// inlines.
func (b *Bucket) nextKey() (Key, bool) {
	for b.i > 0 {
		b.i--
		if k := b.keys[b.i]; k.ref != noEntry {
			return k, true
		}
	}
	return Key{}, false
}

// Entry returns the entry of k, a key Next returned.
func (b *Bucket) Entry(k Key) *Entry { return b.s.at(k.Index()) }

// BucketLen returns the number of entries in the bucket of (insn,
// callsite).
func (s *Store) BucketLen(insn, callsite int32) int {
	return int(s.buckets[BucketIndex(insn, callsite, len(s.buckets))].n)
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
		if e.bucket != onFreeList {
			b := &s.buckets[e.bucket]
			if b.keys != 0 {
				s.keys[b.keys-1].group(e.Insn).keys[e.pos].ref |= 1
			}
			if !e.Cleaned {
				b.cleanable++
			}
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
	*e = Entry{State: st, Insn: insn, Chain: st.ChainKey(), Cleaned: st.Cleaned, done: st.Branches == 0, bucket: int32(BucketIndex(insn, callsite, len(s.buckets)))}
	b := &s.buckets[e.bucket]
	s.pushFront(&b.head, idx, e)
	b.n++
	if b.keys != 0 {
		s.addKey(&s.keys[b.keys-1], idx, e)
	} else if b.n >= longBucket {
		s.makeKeys(b)
	}
	if !e.Cleaned && e.done {
		b.cleanable++
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
	for i := range s.keys {
		s.keys[i] = bucketKeys{groups: s.keys[i].groups[:0]}
	}
	s.keys = s.keys[:0]
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
	return &s.buckets[e.bucket].head
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

// makeKeys gives b, which has just reached longBucket entries, its keys.
func (s *Store) makeKeys(b *bucket) {
	if len(s.keys) < cap(s.keys) {
		s.keys = s.keys[:len(s.keys)+1]
	} else {
		s.keys = append(s.keys, bucketKeys{})
	}
	b.keys = int32(len(s.keys))
	bk := &s.keys[b.keys-1]
	// The list runs newest first, the keys oldest first: each group is
	// filled newest first, then reversed.
	for i := b.head; i != noEntry; {
		e := s.at(i)
		g := bk.addGroup(e.Insn)
		g.keys = append(g.keys, keyOf(e, i))
		i = e.next
	}
	for gi := range bk.groups {
		keys := bk.groups[gi].keys
		slices.Reverse(keys)
		for pos, k := range keys {
			s.at(k.Index()).pos = int32(pos)
		}
	}
}

// addKey appends the key of e, at slab index idx, to its instruction's
// group in bk, first closing the group's holes when they are half its
// keys. Only Add calls it: no walk is under way.
func (s *Store) addKey(bk *bucketKeys, idx int32, e *Entry) {
	g := bk.addGroup(e.Insn)
	if 2*g.holes > int32(len(g.keys)) {
		n := 0
		for _, k := range g.keys {
			if k.ref == noEntry {
				continue
			}
			g.keys[n] = k
			s.at(k.Index()).pos = int32(n)
			n++
		}
		g.keys = g.keys[:n]
		g.holes = 0
	}
	e.pos = int32(len(g.keys))
	g.keys = append(g.keys, keyOf(e, idx))
}

// unlink removes e from its list and returns its index. e.next is kept so
// that a Walk standing on e could still move on. Leaving a long bucket
// leaves a hole in its keys.
func (s *Store) unlink(e *Entry) int32 {
	if e.bucket != onFreeList {
		b := &s.buckets[e.bucket]
		b.n--
		if b.keys != 0 {
			g := s.keys[b.keys-1].group(e.Insn)
			g.keys[e.pos].ref = noEntry
			g.holes++
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
