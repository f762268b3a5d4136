package states

// QuickMiss is a stored state's cheap negative answer: a constant spilled
// in one of its stack slots that the last failed comparison against it
// stopped at (the hinted slot, see hintFails). Kept next to the state in
// the store's entry, it answers the next comparisons without reading the
// stored state: a current state holding another constant in that slot
// fails StatesEqual in any mode, since the comparison is a conjunction and
// this slot's comparison, two 64-bit spilled scalars, ends at regSafe,
// whose tnum test (old's constant within cur's) fails.
//
// This is what a loop costs whose counter lives on the stack (a bpf_loop
// callback's context, an open-coded iterator's index): every arrival at
// the loop head is compared with every stored iteration, each holding a
// different count, and each comparison used to walk three layers of
// calls into the stored state to find what one word here says.
//
// A stored state changes after it is stored only by cleaning (slots
// become INVALID and are no longer compared: the store drops the answer,
// prune.Store.MarkCleaned) and by precision marks, which only ever set bits: an
// answer taken while the spill was imprecise serves only the modes that
// compare imprecise scalars (not NotExact) and stays right when the mark
// comes later.
type QuickMiss struct {
	// val is the constant old spilled at frame's slot spi.
	val        uint64
	frame, spi int8
	// valid says the answer holds; precise whether old's spill was
	// precise when it was taken. named says frame and spi name the
	// hinted slot last looked at, valid or not, so that the misses at
	// a slot that holds no constant look at it once.
	valid, precise, named bool
}

// noMiss marks that the last StatesEqual did not fail at a hinted slot.
const noMiss = -1

// noteHintMiss records that the comparison of old failed at the hinted
// slot spi of frame: UpdateQuickMiss may make an answer of it.
func (e *EqualEnv) noteHintMiss(old *State, frame, spi int) {
	e.missState, e.missFrame, e.missSpi = old, int8(frame), int8(spi)
}

// UpdateQuickMiss refreshes q, old's answer, after a failed comparison
// with old: when the last StatesEqual failed at a hinted slot that q has
// not looked at, q becomes the answer that slot gives (a cheap test,
// inlined at every miss; the slot is read out of line).
func (e *EqualEnv) UpdateQuickMiss(q *QuickMiss, old *State) {
	if !q.valid && e.missState == old && e.missSpi != noMiss {
		e.updateQuickMiss(q, old)
	}
}

// updateQuickMiss is UpdateQuickMiss past its inlined test (kept out of
// line so that the test inlines).
//
//go:noinline
func (e *EqualEnv) updateQuickMiss(q *QuickMiss, old *State) {
	if !q.named || q.frame != e.missFrame || q.spi != e.missSpi {
		*q = e.quickMissOf(old)
	}
}

// quickMissOf is the answer of the hinted slot the last StatesEqual, a
// comparison with old, failed at: valid if that slot of old holds a 64-bit
// spilled constant.
func (e *EqualEnv) quickMissOf(old *State) QuickMiss {
	q := QuickMiss{frame: e.missFrame, spi: e.missSpi, named: true}
	// The answer rests on old's slot alone, whichever comparison named
	// it; the bounds guard against a state recycled since.
	if int(e.missFrame) > int(old.CurFrame) || int(e.missSpi) >= old.Frames[e.missFrame].NumSlots() {
		return q
	}
	s := old.Frames[e.missFrame].Slot(int(e.missSpi))
	if v, ok := spilledConst(s); ok {
		q.val, q.valid, q.precise = v, true, s.Spilled.Precise()
	}
	return q
}

// spilledConst returns the constant a 64-bit scalar spill in s holds, if
// s is one: the only slots a quick answer is made of and compared with.
func spilledConst(s *Slot) (uint64, bool) {
	ok := slotWord(s) == everyByteSpill && s.Spilled.Type == ScalarValue && s.Spilled.Var.IsConst()
	return s.Spilled.Var.Value, ok
}

// Fails reports whether StatesEqual(old, cur, mode) is false for the old
// state q was taken from, without reading it: cur spills another constant
// in the same slot. false means "compare". A bucket walk asks through a
// QuickProbe, which reads cur's slot once for all the entries.
func (q *QuickMiss) Fails(cur *State, mode ExactMode) bool {
	p := NewQuickProbe(cur)
	return p.Fails(q, mode)
}

// QuickProbe answers QuickMiss.Fails for one current state over a bucket
// walk: the entries of a loop head's bucket hold answers at the same slot
// (the loop's counter), and cur's constant there is read once instead of
// once per entry (bpf_loop's callback entry meets dozens of stored
// iterations at every arrival). cur must not change while the probe is
// used.
type QuickProbe struct {
	cur *State
	// val and ok are cur's spilled constant at (frame, spi), once known.
	val        uint64
	frame, spi int8
	ok, known  bool
}

// NewQuickProbe returns a probe of cur.
func NewQuickProbe(cur *State) QuickProbe { return QuickProbe{cur: cur} }

// Fails is q.Fails(p's state, mode).
func (p *QuickProbe) Fails(q *QuickMiss, mode ExactMode) bool {
	return q.valid && p.fails(q, mode)
}

// fails is Fails for a valid answer, out of line so that Fails inlines
// to the test of valid.
func (p *QuickProbe) fails(q *QuickMiss, mode ExactMode) bool {
	if mode == NotExact && !q.precise {
		return false
	}
	if !p.known || p.frame != q.frame || p.spi != q.spi {
		p.frame, p.spi, p.known = q.frame, q.spi, true
		p.val, p.ok = 0, false
		if cur := p.cur; int(q.frame) <= int(cur.CurFrame) {
			if f := cur.Frames[q.frame]; int(q.spi) < f.NumSlots() {
				p.val, p.ok = spilledConst(f.Slot(int(q.spi)))
			}
		}
	}
	return p.ok && p.val != q.val
}

// Valid reports whether q holds an answer.
func (q *QuickMiss) Valid() bool { return q.valid }
