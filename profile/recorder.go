package profile

import (
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

// Recorder collects the raw counters of one verification. The verifier
// calls its hooks; every hook does nothing on a nil *Recorder and inlines
// to that test, so a verification without profiling pays one predictable
// branch per hook and nothing else.
type Recorder struct {
	cfg   *insn.CFG
	insns []Counters
	loops []insn.Loop
	// headerOf is, per instruction, 1 + the index in loops of the loop it
	// heads, or 0.
	headerOf []int32
	// entries and iterations count, per loop, the visits of its header
	// from outside and from inside the loop.
	entries, iterations []int
	reasons             map[reasonKey]*reasonAcc
	// unsampled counts, per instruction past FullMisses misses, the
	// misses since its last sample; lastReason is the reason its last
	// classified miss had (CountMiss, flushUnsampled).
	unsampled  map[int32]int
	lastReason map[int32]*reasonAcc
}

// reasonKey groups the misses at one instruction that have the same
// reason at the same place.
type reasonKey struct {
	insn     int32
	kind     states.MismatchKind
	frame    int8
	reg      int8
	slot     int16
	curFrame int8
	ancestor bool
}

// reasonAcc counts the misses of one reasonKey and keeps the first as
// the example shown.
type reasonAcc struct {
	count   int
	example states.Mismatch
}

// NewRecorder returns a recorder for a program with the control-flow
// facts cfg.
func NewRecorder(cfg *insn.CFG) *Recorder {
	r := &Recorder{
		cfg:      cfg,
		insns:    make([]Counters, cfg.Len()),
		loops:    cfg.Loops(),
		headerOf: make([]int32, cfg.Len()),
		reasons:  make(map[reasonKey]*reasonAcc),
	}
	for i, l := range r.loops {
		r.headerOf[l.Header] = int32(i + 1)
	}
	r.entries = make([]int, len(r.loops))
	r.iterations = make([]int, len(r.loops))
	return r
}

// Visit counts one simulated instruction, reached from prev (-1 at the
// start of a pass). The verifier calls it wherever it counts
// insn_processed.
func (r *Recorder) Visit(insnIdx, prev int) {
	if r == nil {
		return
	}
	r.visit(insnIdx, prev)
}

// visit is Visit's work, kept out of line so that the verifier's main
// loop, where Visit inlines, only grows by the nil test and a call.
//
//go:noinline
func (r *Recorder) visit(insnIdx, prev int) {
	r.insns[insnIdx].Visits++
	l := r.headerOf[insnIdx]
	if l == 0 {
		return
	}
	if prev >= 0 && r.cfg.SCC(prev) == r.loops[l-1].SCC {
		r.iterations[l-1]++
	} else {
		r.entries[l-1]++
	}
}

// Hit counts a stored state at insnIdx that pruned the current path.
func (r *Recorder) Hit(insnIdx int) {
	if r == nil {
		return
	}
	r.insns[insnIdx].Hits++
}

// Misses at one instruction past FullMisses are classified about one in
// SampleEvery, each for the misses since the one before: a program at the complexity
// limit compares up to a hundred stored states per prune point, and its
// budget explanation (verified again with a profile) spent five times
// the verification's own time classifying every miss. Percentages of
// reasons are then estimates; miss counts stay exact.
const (
	FullMisses  = 10_000
	SampleEvery = 8
)

// CountMiss counts a stored state at insnIdx that did not prune the
// current path and returns the weight of its reason: 1 for each of the
// instruction's first FullMisses; past them, about one miss in SampleEvery
// is sampled and weighs itself and the misses since the previous sample,
// the others weigh 0 and their reasons are not asked for (Classify). The
// misses after an instruction's last sample go to its last reason when the
// profile is built, so that reasons always add up to misses.
func (r *Recorder) CountMiss(insnIdx int) int {
	if r == nil {
		return 0
	}
	n := r.insns[insnIdx].Misses
	r.insns[insnIdx].Misses++
	if n < FullMisses {
		return 1
	}
	if r.unsampled == nil {
		r.unsampled = make(map[int32]int)
	}
	w := r.unsampled[int32(insnIdx)] + 1
	if !sampled(uint64(n)) {
		r.unsampled[int32(insnIdx)] = w
		return 0
	}
	delete(r.unsampled, int32(insnIdx))
	return w
}

// sampled picks one miss number in SampleEvery, scattered by a
// multiplicative hash: a fixed stride would alias with the period of the
// loop whose misses are counted (a stride of 8 over a loop whose
// iterations alternate between two reasons sees one of them only).
func sampled(n uint64) bool {
	return (n*0x9e3779b97f4a7c15)>>61 == 0
}

// Classify records reason m for weight misses at insnIdx (CountMiss's
// answer); curFrame is the compared states' innermost frame, ancestor
// says the stored state is an ancestor of the current path.
func (r *Recorder) Classify(insnIdx int, m states.Mismatch, curFrame int, ancestor bool, weight int) {
	if r == nil || weight == 0 {
		return
	}
	r.classify(insnIdx, m, curFrame, ancestor, weight)
}

// classify is Classify's work, out of line for the same reason as visit.
//
//go:noinline
func (r *Recorder) classify(insnIdx int, m states.Mismatch, curFrame int, ancestor bool, weight int) {
	k := reasonKey{insn: int32(insnIdx), kind: m.Kind, frame: m.Frame, reg: m.Reg, slot: m.Slot, curFrame: int8(curFrame), ancestor: ancestor}
	acc := r.reasons[k]
	if acc == nil {
		acc = &reasonAcc{example: m}
		r.reasons[k] = acc
	}
	acc.count += weight
	if r.insns[insnIdx].Misses > FullMisses {
		// Sampled: the misses after the last sample go to this reason.
		if r.lastReason == nil {
			r.lastReason = make(map[int32]*reasonAcc)
		}
		r.lastReason[int32(insnIdx)] = acc
	}
}

// flushUnsampled gives the misses after each instruction's last sample to
// that instruction's last reason.
func (r *Recorder) flushUnsampled() {
	for insn, n := range r.unsampled {
		if acc := r.lastReason[insn]; acc != nil {
			acc.count += n
		}
	}
	clear(r.unsampled)
}

// Evict counts a stored state at insnIdx dropped for missing too often.
func (r *Recorder) Evict(insnIdx int) {
	if r == nil {
		return
	}
	r.insns[insnIdx].Evictions++
}

// Add counts a checkpoint stored at insnIdx.
func (r *Recorder) Add(insnIdx int) {
	if r == nil {
		return
	}
	r.insns[insnIdx].StatesAdded++
}

// ListLen records a walk over n stored states at insnIdx that did not
// prune (what the kernel's max_states_per_insn is the maximum of).
func (r *Recorder) ListLen(insnIdx, n int) {
	if r == nil {
		return
	}
	c := &r.insns[insnIdx]
	c.MaxStates = max(c.MaxStates, n)
}
