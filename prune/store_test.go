package prune

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/vercheck/vercheck/states"
)

// recorder is a fake Releaser that records the instruction of every state
// put back.
type recorder struct {
	puts []int32
}

func (r *recorder) Put(st *states.State) { r.puts = append(r.puts, st.InsnIdx) }

func newState(insn, branches int32) *states.State {
	return &states.State{InsnIdx: insn, Branches: branches}
}

func TestBucketIndex(t *testing.T) {
	tests := []struct {
		insn, callsite int32
		progLen, want  int
	}{
		// Main frame: the hash is uint32(^insn) % progLen.
		{0, MainCallSite, 5, 0},
		{1, MainCallSite, 5, 4},
		{6, MainCallSite, 5, 4}, // collides with insn 1
		{4, MainCallSite, 5, 1},
		{7, 3, 5, 4}, // insn 7 called from insn 3 collides with main's insn 1
		{2, 5, 5, 2},
		{0, MainCallSite, 1000, 295},
		{999, MainCallSite, 1000, 296},
		{3, MainCallSite, 0, 0}, // degenerate length: one bucket, no panic
	}
	for _, tt := range tests {
		if got := BucketIndex(tt.insn, tt.callsite, tt.progLen); got != tt.want {
			t.Errorf("BucketIndex(%d, %d, %d) = %d, want %d", tt.insn, tt.callsite, tt.progLen, got, tt.want)
		}
	}
}

// TestEvictionThreshold drives hit/miss sequences and records the miss at
// which the entry is evicted.
func TestEvictionThreshold(t *testing.T) {
	const neverEvicted = 0
	custom, err := ParsePolicy("miss>5*hit+2")
	if err != nil {
		t.Fatal(err)
	}
	nodrop, err := ParsePolicy("nodrop")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		policy   Policy
		hits     int
		force    bool
		branches int32
		want     int // the miss that evicts, 1-based
	}{
		{"no hits", DefaultPolicy(), 0, false, 0, 4},
		{"one hit", DefaultPolicy(), 1, false, 0, 7},
		{"two hits", DefaultPolicy(), 2, false, 0, 10},
		{"open branches alone change nothing", DefaultPolicy(), 0, false, 1, 4},
		{"force checkpoint, branches done", DefaultPolicy(), 0, true, 0, 4},
		{"force checkpoint, open branches", DefaultPolicy(), 0, true, 1, 65},
		{"force checkpoint, open branches, one hit", DefaultPolicy(), 1, true, 2, 129},
		{"custom rule", custom, 0, false, 0, 3},
		{"custom rule, one hit", custom, 1, false, 0, 8},
		{"nodrop", nodrop, 0, false, 0, neverEvicted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(10, tt.policy, &recorder{})
			e := s.Add(3, MainCallSite, newState(3, tt.branches))
			for range tt.hits {
				s.Hit(e)
			}
			got := neverEvicted
			for m := 1; m <= 1000; m++ {
				if s.Miss(e, tt.force) {
					got = m
					break
				}
			}
			if got != tt.want {
				t.Errorf("evicted at miss %d, want %d", got, tt.want)
			}
		})
	}
}

// TestFreeing runs one scenario under each freeing policy: a finished state
// (D, insn 1) and an open one (O, insn 2) are evicted, then O's branches
// reach 0, then the pass ends.
func TestFreeing(t *testing.T) {
	type step struct {
		Puts       []int32
		FreeList   int
		FreedEarly int
	}
	tests := []struct {
		freeing Freeing
		pending bool
		want    []step // after evicting both, after O's BranchesDone, after Release
	}{
		{FreeBranches, false, []step{
			{Puts: []int32{1}, FreeList: 1, FreedEarly: 1},
			{Puts: []int32{1, 2}, FreeList: 0, FreedEarly: 2},
			{Puts: []int32{1, 2, 3}, FreeList: 0, FreedEarly: 2},
		}},
		{FreeBranches, true, []step{ // pending back-edges hold both back
			{Puts: nil, FreeList: 2},
			{Puts: nil, FreeList: 2},
			{Puts: []int32{1, 2, 3}, FreeList: 2},
		}},
		{FreeLivenessDone, false, []step{
			{Puts: []int32{1}, FreeList: 1, FreedEarly: 1},
			{Puts: []int32{1}, FreeList: 1, FreedEarly: 1},
			{Puts: []int32{1, 2, 3}, FreeList: 1, FreedEarly: 1},
		}},
		{FreeAtEnd, false, []step{
			{Puts: nil, FreeList: 2},
			{Puts: nil, FreeList: 2},
			{Puts: []int32{1, 2, 3}, FreeList: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/pending=%v", tt.freeing, tt.pending), func(t *testing.T) {
			p := DefaultPolicy()
			p.Freeing = tt.freeing
			rec := &recorder{}
			s := NewStore(10, p, rec)
			s.SetPending(func(*states.State) bool { return tt.pending })
			done, open := newState(1, 0), newState(2, 1)
			ed := s.Add(1, MainCallSite, done)
			eo := s.Add(2, MainCallSite, open)
			s.Add(3, MainCallSite, newState(3, 1)) // stays in its bucket
			snap := func() step {
				st := s.Stats()
				return step{Puts: append([]int32(nil), rec.puts...), FreeList: st.FreeList, FreedEarly: st.FreedEarly}
			}
			var got []step
			s.evict(ed)
			s.evict(eo)
			got = append(got, snap())
			open.Branches = 0
			s.BranchesDone(open)
			got = append(got, snap())
			s.Release()
			got = append(got, snap())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("freeing mismatch (-want +got):\n%s", diff)
			}
			if live := s.Stats().Live; live != 0 {
				t.Errorf("Live after Release = %d, want 0", live)
			}
		})
	}
}

// TestBranchesDoneInBucket checks that a state still in its bucket is not
// released when its branches reach 0: only evicted states are.
func TestBranchesDoneInBucket(t *testing.T) {
	rec := &recorder{}
	s := NewStore(10, DefaultPolicy(), rec)
	st := newState(4, 1)
	s.Add(4, MainCallSite, st)
	st.Branches = 0
	s.BranchesDone(st)
	s.BranchesDone(newState(5, 0)) // never stored: ignored
	if len(rec.puts) != 0 {
		t.Errorf("puts = %v, want none", rec.puts)
	}
	if got := s.BucketLen(4, MainCallSite); got != 1 {
		t.Errorf("BucketLen = %d, want 1", got)
	}
}

// TestWalk checks newest-first order, that a walk of a bucket of several
// instructions visits its instruction's entries and counts the others,
// and that evicting the visited entry does not disturb the walk.
func TestWalk(t *testing.T) {
	rec := &recorder{}
	s := NewStore(5, DefaultPolicy(), rec)
	// Insns 1 and 6 of main and insn 7 called from insn 3 share bucket 4.
	s.Add(1, MainCallSite, newState(1, 0))
	s.Add(6, MainCallSite, newState(6, 0))
	s.Add(7, 3, newState(7, 0))
	s.Add(1, MainCallSite, newState(1, 0))
	s.Add(0, MainCallSite, newState(0, 0)) // bucket 0

	var order []int32
	n := s.Walk(1, MainCallSite, func(e *Entry) bool {
		order = append(order, e.State.InsnIdx)
		e.Miss = 3 // the next miss evicts it
		if !s.Miss(e, false) {
			t.Errorf("entry at insn %d not evicted", e.State.InsnIdx)
		}
		return true
	})
	if diff := cmp.Diff([]int32{1, 1}, order); diff != "" {
		t.Errorf("walk order mismatch (-want +got):\n%s", diff)
	}
	if n != 4 {
		t.Errorf("Walk's length %d, want 4 (2 visited, 2 of other insns)", n)
	}
	order = order[:0]
	n = s.Walk(7, 3, func(e *Entry) bool {
		order = append(order, e.State.InsnIdx)
		return true
	})
	if diff := cmp.Diff([]int32{7}, order); diff != "" {
		t.Errorf("walk after eviction mismatch (-want +got):\n%s", diff)
	}
	if n != 2 {
		t.Errorf("Walk's length after eviction %d, want 2", n)
	}
	// Stopping early still counts the other instruction's entry.
	if n = s.Walk(6, MainCallSite, func(*Entry) bool { return false }); n != 2 {
		t.Errorf("Walk that stops at once: length %d, want 2", n)
	}
	// A bucket of one instruction walks every entry, as a list.
	if n = s.Walk(0, MainCallSite, func(*Entry) bool { return true }); n != 1 {
		t.Errorf("Walk of bucket 0: length %d, want 1", n)
	}
	if diff := cmp.Diff([]int32{1, 1}, rec.puts); diff != "" {
		t.Errorf("puts mismatch (-want +got):\n%s", diff)
	}
}

// TestSlotReuse checks that released slots are recycled and entries stay
// consistent.
func TestSlotReuse(t *testing.T) {
	s := NewStore(3, DefaultPolicy(), nil)
	a := s.Add(0, MainCallSite, newState(0, 0))
	ia := s.IndexOf(a.State)
	s.evict(a) // branches 0: released at once
	if s.Entry(ia) != nil {
		t.Errorf("Entry(%d) of a released slot is not nil", ia)
	}
	b := newState(1, 1)
	eb := s.Add(1, MainCallSite, b)
	if got := s.IndexOf(b); got != ia {
		t.Errorf("new entry got slot %d, want recycled slot %d", got, ia)
	}
	if s.Entry(ia) != eb || s.EntryOf(b) != eb {
		t.Errorf("Entry/EntryOf do not find the new entry")
	}
	if s.Entry(-1) != nil || s.Entry(99) != nil {
		t.Errorf("Entry of an out-of-range index is not nil")
	}
}

// TestStats checks total, peak (6.15+ and pre-6.15) and max per insn.
func TestStats(t *testing.T) {
	run := func(freeing Freeing) Stats {
		p := DefaultPolicy()
		p.Freeing = freeing
		s := NewStore(5, p, nil)
		a := s.Add(1, MainCallSite, newState(1, 0))
		s.Add(6, MainCallSite, newState(6, 1))
		s.Add(2, MainCallSite, newState(2, 1))
		// Walk insn 1's bucket, which also holds insn 6.
		s.NoteBucketLen(s.Walk(1, MainCallSite, func(e *Entry) bool {
			if e == a {
				s.Hit(e)
			}
			return true
		}))
		for !s.Miss(a, false) {
		}
		s.AddBackedge()
		s.AddBackedge()
		s.Add(3, MainCallSite, newState(3, 1)) // explored 3 + backedges 2
		s.RemoveBackedges(2)
		s.Add(4, MainCallSite, newState(4, 1))
		return s.Stats()
	}
	tests := []struct {
		freeing Freeing
		want    Stats
	}{
		{FreeBranches, Stats{
			TotalStates: 5, PeakStates: 5, MaxStatesPerInsn: 2,
			Explored: 4, FreeList: 0, Backedges: 0, Live: 4,
			FreedEarly: 1, Evicted: 1, Hits: 1, Misses: 7,
		}},
		{FreeAtEnd, Stats{
			TotalStates: 5, PeakStates: 6, MaxStatesPerInsn: 2,
			Explored: 4, FreeList: 1, Backedges: 0, Live: 5,
			FreedEarly: 0, Evicted: 1, Hits: 1, Misses: 7,
		}},
		{FreeLivenessDone, Stats{ // pre-6.15: 5 checkpoints - 1 immediate free
			TotalStates: 5, PeakStates: 4, MaxStatesPerInsn: 2,
			Explored: 4, FreeList: 0, Backedges: 0, Live: 4,
			FreedEarly: 1, Evicted: 1, Hits: 1, Misses: 7,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.freeing.String(), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, run(tt.freeing)); diff != "" {
				t.Errorf("stats mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReleaseKeepsCounters checks that, as in Linux, the explored and free
// list counters survive the end of a pass, so the next pass's peak builds
// on them.
func TestReleaseKeepsCounters(t *testing.T) {
	rec := &recorder{}
	p := DefaultPolicy()
	p.Freeing = FreeAtEnd
	s := NewStore(4, p, rec)
	s.Add(0, MainCallSite, newState(0, 0))
	e := s.Add(1, MainCallSite, newState(1, 0))
	s.evict(e)
	s.Release()
	s.Add(2, MainCallSite, newState(2, 0))
	got := s.Stats()
	want := Stats{TotalStates: 3, PeakStates: 3, Explored: 2, FreeList: 1, Live: 1, Evicted: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats after second pass mismatch (-want +got):\n%s", diff)
	}
	if n := s.BucketLen(1, MainCallSite); n != 0 {
		t.Errorf("bucket of insn 1 holds %d entries after Release, want 0", n)
	}
	s.Release()
	if diff := cmp.Diff([]int32{0, 1, 2}, rec.puts); diff != "" {
		t.Errorf("puts mismatch (-want +got):\n%s", diff)
	}
}

// TestSlabGrowth adds more entries than one chunk holds and checks that
// earlier *Entry values stay valid.
func TestSlabGrowth(t *testing.T) {
	s := NewStore(7, DefaultPolicy(), nil)
	const n = 3*chunkSize + 5
	entries := make([]*Entry, n)
	for i := range int32(n) {
		entries[i] = s.Add(i%7, MainCallSite, newState(i%7, 1))
		entries[i].Hit = i
	}
	for i, e := range entries {
		if e != s.Entry(int32(i)) || e.Hit != int32(i) {
			t.Fatalf("entry %d moved or changed", i)
		}
	}
	total := 0
	for insn := range int32(7) {
		total += s.BucketLen(insn, MainCallSite)
	}
	if total != n {
		t.Errorf("buckets hold %d entries, want %d", total, n)
	}
}

// TestRecycleLeavesChunksZeroed checks that the chunks a store gives back
// hold no entry, whether or not it was released first: a pooled chunk
// must not keep a verification's states alive.
func TestRecycleLeavesChunksZeroed(t *testing.T) {
	for _, release := range []bool{true, false} {
		s := NewStore(7, DefaultPolicy(), &recorder{})
		for i := range int32(chunkSize + 3) {
			s.Add(i%7, MainCallSite, newState(i%7, 1))
		}
		if release {
			s.Release()
		}
		chunks := slices.Clone(s.chunks)
		s.Recycle()
		for k, c := range chunks {
			if i := slices.IndexFunc(c, func(e Entry) bool { return e != Entry{} }); i >= 0 {
				t.Errorf("release=%v: chunk %d entry %d not zeroed: %+v", release, k, i, c[i])
			}
		}
	}
}

// TestEntrySize guards the size of Entry, touched on every bucket walk:
// 40 bytes of links, counters and copies of the state's insn and cleaned
// flag, the 8 of its call-chain key and the 16 of the quick answer, which
// spare reading the state: one cache line.
func TestEntrySize(t *testing.T) {
	const want = 64
	if got := unsafe.Sizeof(Entry{}); got != want {
		t.Errorf("sizeof(Entry) = %d, want %d", got, want)
	}
}

// pool is a recycling Releaser for the benchmark.
type pool struct{ free []*states.State }

func (p *pool) Put(st *states.State) { p.free = append(p.free, st) }

func (p *pool) get(insn int32) *states.State {
	if n := len(p.free); n > 0 {
		st := p.free[n-1]
		p.free = p.free[:n-1]
		st.InsnIdx, st.Branches = insn, 0
		return st
	}
	return newState(insn, 0)
}

// BenchmarkWalkAdd adds a checkpoint to a 1000-state store (ten per
// bucket) and walks its bucket, as is_state_visited does; the new entry
// misses and is evicted and released, so the store keeps its size.
func BenchmarkWalkAdd(b *testing.B) {
	const (
		progLen = 100
		nStates = 1000
	)
	pl := &pool{}
	s := NewStore(progLen, DefaultPolicy(), pl)
	for i := range int32(nStates) {
		s.Add(i%progLen, MainCallSite, pl.get(i%progLen))
	}
	insn := int32(0)
	b.ReportAllocs()
	for b.Loop() {
		added := s.Add(insn, MainCallSite, pl.get(insn))
		added.Miss = KernelMissAdd
		n := s.Walk(insn, MainCallSite, func(e *Entry) bool {
			if e == added {
				s.Miss(e, false)
			}
			return true
		})
		s.NoteBucketLen(n)
		insn = (insn + 1) % progLen
	}
	if got := s.Stats().Live; got != nStates {
		b.Fatalf("store holds %d states, want %d", got, nStates)
	}
}

// TestWithStatesPool runs a store over the real pool: released states come
// back from Get.
func TestWithStatesPool(t *testing.T) {
	var pl states.Pool
	s := NewStore(8, DefaultPolicy(), &pl)
	st := pl.Get()
	st.InsnIdx, st.Branches = 2, 0
	e := s.Add(2, MainCallSite, st)
	s.evict(e)
	if got := pl.Get(); got != st {
		t.Errorf("pool did not hand back the released state")
	}
}

// TestCleanableTracking follows the per-bucket count of entries that may
// be cleaned (not cleaned, no open branch) through adds, the end of their
// branches, cleaning, eviction and release, in a 3-slot table where insns
// 0 and 3 of the main frame share a bucket.
func TestCleanableTracking(t *testing.T) {
	s := NewStore(3, DefaultPolicy(), nil)
	type view struct {
		Has0, Has1 bool
		Insns      []int32 // visited by a walk of insn 0
		Len        int     // the walk's length, colliding insn 3 included
	}
	snap := func() view {
		v := view{Has0: s.HasCleanable(0, MainCallSite), Has1: s.HasCleanable(1, MainCallSite)}
		v.Len = s.Walk(0, MainCallSite, func(e *Entry) bool { v.Insns = append(v.Insns, e.Insn); return true })
		return v
	}
	done := func(e *Entry) {
		e.State.Branches = 0
		s.BranchesDone(e.State)
	}
	var got []view
	got = append(got, snap())
	a := s.Add(0, MainCallSite, newState(0, 1)) // open: an ancestor of the path
	cleaned := newState(3, 0)
	cleaned.Cleaned = true
	b := s.Add(3, MainCallSite, cleaned) // same bucket as insn 0, already cleaned
	got = append(got, snap())
	if !b.Cleaned || a.Cleaned {
		t.Errorf("Cleaned not copied from the states: a %v, b %v", a.Cleaned, b.Cleaned)
	}
	done(a)
	got = append(got, snap())
	s.MarkCleaned(a)
	s.MarkCleaned(a) // twice is once
	got = append(got, snap())
	c := s.Add(0, MainCallSite, newState(0, 1))
	done(c)
	got = append(got, snap())
	s.evict(c) // a cleanable entry leaves the bucket
	got = append(got, snap())
	s.MarkCleaned(c) // on the free list: no count to drop
	// Added with no open branch: cleanable at once.
	d := s.Add(0, MainCallSite, newState(0, 0))
	got = append(got, snap())
	done(d) // told again: still one entry to clean
	got = append(got, snap())
	s.MarkCleaned(d)
	got = append(got, snap())
	s.Release()
	got = append(got, snap())
	want := []view{
		{},
		{Insns: []int32{0}, Len: 2},
		{Has0: true, Insns: []int32{0}, Len: 2},
		{Insns: []int32{0}, Len: 2},
		{Has0: true, Insns: []int32{0, 0}, Len: 3},
		{Insns: []int32{0}, Len: 2},
		{Has0: true, Insns: []int32{0, 0}, Len: 3},
		{Has0: true, Insns: []int32{0, 0}, Len: 3},
		{Insns: []int32{0, 0}, Len: 3},
		{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cleanable tracking mismatch (-want +got):\n%s", diff)
	}
}

// TestKnownFruitless: a cleaning walk remembered as fruitless stays so for
// its instruction and chain until an entry of the bucket becomes cleanable
// (added done, or its last branch closing) or a loop's back-edges are
// dropped; nothing else revives it.
func TestKnownFruitless(t *testing.T) {
	const chain = 7
	tests := []struct {
		name  string
		after func(s *Store, open *Entry)
		insn  int32
		chain uint64
		want  bool
	}{
		{"nothing changed", func(*Store, *Entry) {}, 0, chain, true},
		{"another chain", func(*Store, *Entry) {}, 0, chain + 1, false},
		{"another insn of the bucket", func(*Store, *Entry) {}, 3, chain, false},
		{"an open entry added", func(s *Store, _ *Entry) { s.Add(0, MainCallSite, newState(0, 1)) }, 0, chain, true},
		{"a done entry added", func(s *Store, _ *Entry) { s.Add(0, MainCallSite, newState(0, 0)) }, 0, chain, false},
		{"a done entry added to another bucket", func(s *Store, _ *Entry) { s.Add(1, MainCallSite, newState(1, 0)) }, 0, chain, true},
		{"an entry's last branch closes", func(s *Store, e *Entry) {
			e.State.Branches = 0
			s.BranchesDone(e.State)
		}, 0, chain, false},
		{"a loop left with back-edges", func(s *Store, _ *Entry) {
			s.AddBackedge()
			s.RemoveBackedges(1)
		}, 0, chain, false},
		{"a loop left without back-edges", func(s *Store, _ *Entry) { s.RemoveBackedges(0) }, 0, chain, true},
		{"a back-edge added", func(s *Store, _ *Entry) { s.AddBackedge() }, 0, chain, true},
		{"an entry cleaned", func(s *Store, e *Entry) { s.MarkCleaned(e) }, 0, chain, true},
		{"an entry evicted", func(s *Store, e *Entry) { s.evict(e) }, 0, chain, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(3, DefaultPolicy(), &recorder{})
			if s.KnownFruitless(0, MainCallSite, chain) {
				t.Fatal("fruitless before any walk")
			}
			open := s.Add(0, MainCallSite, newState(0, 1))
			s.Add(3, MainCallSite, newState(3, 0)) // the same bucket, another insn
			s.NoteFruitlessClean(0, MainCallSite, chain)
			if !s.KnownFruitless(0, MainCallSite, chain) {
				t.Fatal("a walk just noted is not known fruitless")
			}
			tt.after(s, open)
			if got := s.KnownFruitless(tt.insn, MainCallSite, tt.chain); got != tt.want {
				t.Errorf("KnownFruitless = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAddSeals checks that a stored state is sealed: its copies compare
// the same, and Add leaves the state otherwise untouched.
func TestAddSeals(t *testing.T) {
	st := states.NewState()
	st.Frames[0].GrowStack(16)
	st.Frames[0].Slot(1).Types = [states.SlotSize]states.SlotType{2, 2, 2, 2, 3, 3, 3, 3}
	before := st.String()
	s := NewStore(4, DefaultPolicy(), nil)
	s.Add(0, MainCallSite, st)
	if got := st.String(); got != before {
		t.Errorf("Add changed the state: %s, was %s", got, before)
	}
	var env states.EqualEnv
	cur := &states.State{}
	cur.CopyFrom(st)
	if !env.StatesEqual(st, cur, states.NotExact) {
		t.Errorf("a sealed state does not subsume its copy")
	}
	cur.Frames[0].Slot(1).Types[5] = states.StackMisc // ZERO lost
	if env.StatesEqual(st, cur, states.NotExact) {
		t.Errorf("a sealed state subsumes a copy that lost a known zero")
	}
}

// TestMarkCleanedDropsQuickMiss: cleaning a stored state may turn the slot
// its entry's quick answer names INVALID, no longer compared, so the
// answer goes with it.
func TestMarkCleanedDropsQuickMiss(t *testing.T) {
	spilled := func(v uint64) *states.State {
		st := states.NewState()
		f := st.Frames[0]
		f.GrowStack(states.SlotSize)
		s := f.Slot(0)
		for i := range s.Types {
			s.Types[i] = states.StackSpill
		}
		s.Spilled.MarkConst(v)
		s.Spilled.SetPrecise(true)
		return st
	}
	s := NewStore(8, DefaultPolicy(), &recorder{})
	old := spilled(1)
	e := s.Add(0, MainCallSite, old)
	var env states.EqualEnv
	// The first miss leaves the hint at the slot, the second the answer.
	for range 2 {
		if env.StatesEqual(old, spilled(2), states.NotExact) {
			t.Fatal("different constants matched")
		}
	}
	env.UpdateQuickMiss(&e.Quick, old)
	if !e.Quick.Fails(spilled(3), states.NotExact) {
		t.Fatal("no quick answer for a spilled constant")
	}
	s.MarkCleaned(e)
	if e.Quick.Valid() {
		t.Error("the answer survived cleaning")
	}
}

// TestBucketWalksAsWalk: Bucket visits what Walk visits, in its order,
// and lets the caller evict the entry it was given.
func TestBucketWalksAsWalk(t *testing.T) {
	s := NewStore(4, DefaultPolicy(), &recorder{})
	for _, insn := range []int32{0, 4, 0, 8} { // one bucket
		s.Add(insn, MainCallSite, newState(insn, 0))
	}
	var walked, bucketed []int32
	s.Walk(0, MainCallSite, func(e *Entry) bool { walked = append(walked, e.Insn); return true })
	b := s.Bucket(0, MainCallSite)
	for e := b.Next(); e != nil; e = b.Next() {
		bucketed = append(bucketed, e.Insn)
		s.evict(e)
	}
	if diff := cmp.Diff(walked, bucketed); diff != "" {
		t.Errorf("Bucket's order (-Walk +Bucket):\n%s", diff)
	}
	if n := s.Walk(0, MainCallSite, func(*Entry) bool { t.Error("an evicted entry visited"); return true }); n != 2 {
		t.Errorf("walk's length %d after evicting insn 0's entries, want 2 (insns 4 and 8)", n)
	}
}

// TestMixedBucket: a bucket that gets entries of a second instruction
// keeps a list per instruction; every walk, whatever the evictions, the
// cleaning and the end of branches, hands out its instruction's live
// entries newest first and counts the others, as a model of the bucket's
// list says, and Release empties it for the next pass.
func TestMixedBucket(t *testing.T) {
	s := NewStore(1, DefaultPolicy(), &recorder{}) // one bucket: progLen 1
	type entry struct {
		st    *states.State
		insn  int32
		alive bool
	}
	var model []entry // oldest first
	add := func(insn int32) {
		st := newState(insn, 1)
		s.Add(insn, MainCallSite, st)
		model = append(model, entry{st: st, insn: insn, alive: true})
	}
	type walked struct {
		Entries []int // indices in model, newest first
		Length  int
	}
	index := func(st *states.State) int {
		return slices.IndexFunc(model, func(e entry) bool { return e.st == st })
	}
	walk := func(insn int32, evict bool) walked {
		var w walked
		b := s.Bucket(insn, MainCallSite)
		w.Length = b.Skipped()
		for e := b.Next(); e != nil; e = b.Next() {
			if e.Insn != insn && s.buckets[0].head < noEntry {
				t.Errorf("a walk of insn %d in a mixed bucket handed out insn %d", insn, e.Insn)
			}
			if e.Insn == insn {
				w.Entries = append(w.Entries, index(e.State))
			}
			w.Length++
			if evict && e.Insn == insn {
				s.evict(e)
			}
		}
		return w
	}
	want := func(insn int32) walked {
		var w walked
		for i := len(model) - 1; i >= 0; i-- {
			if model[i].alive {
				w.Length++
				if model[i].insn == insn {
					w.Entries = append(w.Entries, i)
				}
			}
		}
		return w
	}
	check := func(when string) {
		t.Helper()
		for insn := range int32(3) {
			if diff := cmp.Diff(want(insn), walk(insn, false)); diff != "" {
				t.Errorf("%s, insn %d (-model +walk):\n%s", when, insn, diff)
			}
		}
		if n := s.BucketLen(0, MainCallSite); n != want(0).Length {
			t.Errorf("%s: BucketLen = %d, want %d", when, n, want(0).Length)
		}
	}
	for range 3 {
		add(0)
	}
	check("one instruction")
	if s.buckets[0].head < noEntry {
		t.Fatal("a bucket of one instruction is mixed")
	}
	for i := range int32(12) {
		add(i % 2) // instructions 0 and 1 alternate
	}
	if s.buckets[0].head >= noEntry {
		t.Fatal("a bucket of two instructions is not mixed")
	}
	check("two instructions")
	for i := range model {
		if i%3 == 1 {
			s.evict(s.EntryOf(model[i].st))
			model[i].alive = false
		}
	}
	check("after evictions")
	// Cleaning and finishing one entry of insn 1: the bucket counts it.
	e := s.EntryOf(model[len(model)-1].st)
	e.State.Branches = 0
	s.BranchesDone(e.State)
	if !s.HasCleanable(0, MainCallSite) {
		t.Error("a done entry of a mixed bucket not counted cleanable")
	}
	s.MarkCleaned(e)
	if s.HasCleanable(0, MainCallSite) {
		t.Error("a cleaned entry of a mixed bucket still counted cleanable")
	}
	add(2)
	// Evicting every entry of insn 0 as the walk hands it out.
	got := walk(0, true)
	if w := want(0); !cmp.Equal(got, w) {
		t.Errorf("evicting walk %+v, want %+v", got, w)
	}
	for i := range model {
		if model[i].insn == 0 {
			model[i].alive = false
		}
	}
	check("after the evicting walk")
	s.Release()
	model = nil
	add(5)
	add(5)
	check("after Release")
	if s.buckets[0].head < noEntry {
		t.Error("a released bucket stays mixed")
	}
}
