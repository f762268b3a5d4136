package verifier

// Loops and incomplete precision marks (Linux 6.17+).
//
// A checkpoint's precision marks are complete only once every path below
// it has been explored. Outside loops that is the case whenever the
// checkpoint can match (its Branches are 0). Inside a loop it is not: with
// a loop A -> B -> A and a second exit A -> C, the path through B can come
// back to A and match A's checkpoint before the path through C has
// reported what it needs from A. The kernel (and vercheck) handles this
// per strongly connected component of the control-flow graph
// (insn.CFG.SCC):
//
//   - when a checkpoint is stored inside an SCC and no visit of that SCC is
//     open for its call chain, it becomes the visit's entry state
//     (maybeEnterSCC);
//   - while a visit has pending back-edges its checkpoints are compared in
//     RangeWithin mode, where imprecise scalars still count, and every such
//     match is remembered as a back-edge: a copy of the current state and
//     the checkpoint it matched (addSCCBackedge);
//   - when the entry state's Branches reach 0 the whole loop has been
//     explored: the back-edges' precision is propagated again and again
//     until nothing changes, and the visit is closed (maybeExitSCC).
//
// A visit is keyed by the call chain leading to the SCC (the call sites of
// the frames above the first frame that is inside some SCC, plus that
// SCC), so that the same loop reached from two call sites is two visits.
// States of a visit with pending back-edges are never freed early: the
// back-edges walk their parents (prune.Store.SetPending).

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/states"
)

// sccKey identifies an SCC visit: the call sites leading to the frame
// that is inside the SCC (zero beyond that frame), and the SCC number.
type sccKey struct {
	callsites [states.MaxCallFrames]int32
	scc       int32
}

// backedge is a current state that matched a checkpoint whose marks were
// still incomplete. st is a copy without frames (states.Pool.Backedge):
// the precision walks from it read its history and its ancestors only.
type backedge struct {
	st    *states.State
	equal *states.State
}

// sccVisit is one exploration of an SCC from one call chain.
type sccVisit struct {
	// entry is the first checkpoint stored inside the SCC during this
	// visit; nil when no visit is open.
	entry     *states.State
	backedges []backedge
	// index is the visit's place in precision.visitList, plus one; 0
	// when the list was full (states.State.SCCVisit is an int16).
	index int16
}

// sccCallchain computes st's visit key: the first frame (outermost first)
// whose instruction is inside an SCC gives the SCC; the frames below it
// give the call sites. It reports false when no frame is inside an SCC.
func (e *env) sccCallchain(st *states.State) (sccKey, bool) {
	var k sccKey
	if !e.cfg.HasSCCs {
		// Without a loop there is no SCC to be in.
		return k, false
	}
	for i := 0; i <= int(st.CurFrame); i++ {
		ip := st.FrameInsnIdx(i)
		if scc := e.cfg.SCC(ip); scc != 0 {
			k.scc = int32(scc)
			return k, true
		}
		if i == int(st.CurFrame) {
			return k, false
		}
		k.callsites[i] = int32(ip)
	}
	return k, false
}

// initPrecision installs the store's pending-back-edge check; it runs
// before the first checkpoint of a verification.
func (e *env) initPrecision() {
	if e.prec.pendingHook {
		return
	}
	e.prec.pendingHook = true
	e.store.SetPending(e.incompleteReadMarks)
}

// maybeEnterSCC opens st's visit with st as its entry if st, a new
// checkpoint, is inside an SCC and no visit is open for its call chain. It
// records the visit in st (states.State.SCCVisit).
func (e *env) maybeEnterSCC(st *states.State) {
	if !e.cfg.HasSCCs {
		// Tested here, not only in sccCallchain: a program without a
		// loop spared the 36-byte key's zeroing and copy at every
		// checkpoint and every path's end (1.3% of a corpus pass).
		st.SCCVisit = -1
		return
	}
	k, ok := e.sccCallchain(st)
	if !ok {
		st.SCCVisit = -1
		return
	}
	if e.prec.visits == nil {
		e.prec.visits = make(map[sccKey]*sccVisit)
	}
	v := e.prec.visits[k]
	if v == nil {
		v = &sccVisit{}
		e.prec.visits[k] = v
		if len(e.prec.visitList) < math.MaxInt16 {
			e.prec.visitList = append(e.prec.visitList, v)
			v.index = int16(len(e.prec.visitList))
		}
	}
	st.SCCVisit = v.index
	if v.entry == nil {
		v.entry = st
		if e.log.level >= 2 {
			e.log.printf("SCC enter %s\n", k)
		}
	}
}

// maybeExitSCC closes st's visit when st, whose Branches just reached 0,
// is its entry: the loop is fully explored, so its back-edges' precision
// is propagated to a fixed point and the back-edges are dropped.
//
// A path that ends inside an SCC without any checkpoint of that SCC and
// call chain before it has no visit: a bpf_throw inside a loop reached
// before the loop's first checkpoint. The 6.18 maybe_exit_scc assumes
// that cannot happen, reports "verifier bug: scc exit: no visit info for
// call chain" and WARNs, tainting the kernel, so vercheck refuses it as
// a program the kernel's verifier faults on (ErrKernelFault): no
// comparison loads it.
func (e *env) maybeExitSCC(st *states.State) error {
	if !e.cfg.HasSCCs {
		return nil // see maybeEnterSCC
	}
	k, ok := e.sccCallchain(st)
	if !ok {
		return nil
	}
	v := e.prec.visits[k]
	if v == nil {
		return e.kernelFault("a path ends inside a loop before its first checkpoint: the 6.18 verifier reports \"verifier bug: scc exit: no visit info for call chain %s\" with a kernel warning", k)
	}
	if v.entry != st {
		return nil
	}
	if e.log.level >= 2 {
		e.log.printf("SCC exit %s\n", k)
	}
	v.entry = nil
	e.store.RemoveBackedges(len(v.backedges))
	e.propagateBackedges(v)
	return nil
}

// String formats k as format_callchain does: "(callsite,...,scc)", the
// callsites up to the first zero one.
func (k sccKey) String() string {
	var b strings.Builder
	b.WriteByte('(')
	for _, c := range k.callsites {
		if c == 0 {
			break
		}
		fmt.Fprintf(&b, "%d,", c)
	}
	fmt.Fprintf(&b, "%d)", k.scc)
	return b.String()
}

// addSCCBackedge remembers be, a copy of the current state that matched
// the checkpoint be.equal in RangeWithin mode, in the visit of be.equal.
//
// A loop match outside any SCC has no visit to join: a may_goto whose
// "loop" is the repetition of a bpf_loop callback (two visits of the
// callback's may_goto with different depths), where the instruction lies
// on no cycle of the control-flow graph. The 6.18 add_scc_backedge
// reports "verifier bug: add backedge: no SCC in verification path" (or
// no visit for the call chain) with a kernel warning and fails the load:
// ErrKernelFault, as there.
func (e *env) addSCCBackedge(be backedge) error {
	k, ok := e.sccCallchain(be.equal)
	if !ok {
		e.pool.Put(be.st)
		return e.verifierBug("add backedge: no SCC in verification path, insn_idx %d", be.equal.InsnIdx)
	}
	v := e.prec.visits[k]
	if v == nil {
		e.pool.Put(be.st)
		return e.verifierBug("add backedge: no visit info for call chain %s", k)
	}
	if e.log.level >= 2 {
		e.log.printf("SCC backedge %s\n", k)
	}
	v.backedges = append(v.backedges, be)
	e.store.AddBackedge()
	return nil
}

// incompleteReadMarks reports whether st, a checkpoint, is inside an SCC
// whose visit still has back-edges to propagate: its precision marks may
// be missing requirements from paths not yet explored. The checkpoint
// names its visit (maybeEnterSCC), which spares hashing its call chain
// for every checkpoint a walk compares.
func (e *env) incompleteReadMarks(st *states.State) bool {
	return e.visitIncomplete(st.SCCVisit, st)
}

// entryIncomplete is incompleteReadMarks for a stored checkpoint, read
// from its entry's copy of the visit (prune.Entry.SCCVisit): the state
// itself is read only when its visit was not recorded.
func (e *env) entryIncomplete(sl *prune.Entry) bool {
	return e.visitIncomplete(sl.SCCVisit, sl.State)
}

// visitIncomplete is incompleteReadMarks for the checkpoint st whose
// recorded visit is visit (states.State.SCCVisit); st is read only when
// the visit was not recorded (0), to look its call chain up.
func (e *env) visitIncomplete(visit int16, st *states.State) bool {
	if e.store.PendingBackedges() == 0 || visit < 0 {
		return false
	}
	var v *sccVisit
	if visit > 0 {
		v = e.prec.visitList[visit-1]
	} else if k, ok := e.sccCallchain(st); ok {
		v = e.prec.visits[k]
	}
	return v != nil && len(v.backedges) > 0
}

// propagateBackedges re-propagates the precision every back-edge's matched
// checkpoint holds into the back-edge's ancestors until no mark changes,
// then drops the back-edges. After maxBackedgeIters rounds it gives up and
// makes every scalar above every back-edge precise. The kernel keeps the
// back-edges in a list it pushes each new one onto, so it walks them
// newest first: the order decides how many rounds the marks take to
// settle, and so whether the round limit is reached, and the log's order.
func (e *env) propagateBackedges(v *sccVisit) {
	for i := 0; ; i++ {
		if i > maxBackedgeIters {
			if e.log.level >= 2 {
				e.log.printf("propagate_backedges: too many iterations\n")
			}
			for _, be := range slices.Backward(v.backedges) {
				e.markAllScalarsPrecise(be.st)
			}
			break
		}
		changed := false
		for _, be := range slices.Backward(v.backedges) {
			e.propagatePrecision(be.equal, be.st, &changed)
		}
		if !changed {
			break
		}
	}
	for _, be := range v.backedges {
		e.pool.Put(be.st)
	}
	v.backedges = nil
}
