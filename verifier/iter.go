package verifier

// Open-coded iterators: the kernel's KF_ITER_NEW/NEXT/DESTROY kfuncs.
//
// An iterator lives in the program's stack, in one or more 8-byte slots
// whose bytes are all StackIter (the size of its struct bpf_iter_<kind>
// divided by 8). Its state is kept in the slots' Spilled register (see
// states/stack.go): Aux is the struct's BTF id, Off the IterState, Range
// the iteration depth and, on the main (lowest) slot only, RefObjID the
// reference acquired by the constructor: an iterator that is never
// destroyed is a leaked reference.
//
//   - new(&it, ...) wants slots holding no iterator; it writes them (so
//     the stack grows as for a store) and makes them an active iterator.
//   - next(&it) and destroy(&it), and any kfunc taking an iterator, want
//     an initialised iterator of the same type. destroy releases the
//     reference and leaves the slots never-written.
//   - next is where the loop is. Every call forks: the current path sees
//     the iterator drained and r0 == NULL, and a pushed path sees it still
//     active, one level deeper, with r0 not NULL. next is a forced
//     checkpoint, and isStateVisited ends the loop once an active state
//     is within (RangeWithin) the one stored at the previous iteration.
//     Nothing bounds the number of iterations the verifier looks at, so
//     before each new iteration the scalars that changed since the
//     previous one and never mattered (imprecise) are forgotten
//     (widenLoopScalars): a counter does not keep the states apart.
//
// The depth is compared only by the infinite-loop check
// (iterActiveDepthsDiffer): two states at different depths are
// different iterations, never a loop that makes no progress.

import (
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/kfuncs"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// iterObjKind names an iterator in the messages of stack_slot_obj_get_spi.
const iterObjKind = "iter"

// iterStructPrefix is the name every iterator struct starts with
// (btf_check_iter_arg).
const iterStructPrefix = "bpf_iter_"

// iterFlags are the kfunc flags that make a kfunc part of an iterator.
const iterFlags = kfuncs.IterNew | kfuncs.IterNext | kfuncs.IterDestroy

// iterArgIdx is the argument an iterator kfunc takes its iterator in:
// the kernel's btf_check_iter_kfuncs insists on the first.
const iterArgIdx = 0

// kfuncKind classifies a kfunc call for the control-flow analysis: an
// iterator's next call is a prune point and a forced checkpoint, a call
// of bpf_rbtree_add_impl runs its less callback.
func kfuncKind(call insn.Insn) insn.KfuncKind {
	info, err := kfuncCallee(call)
	if err != nil || info.name == "" {
		return insn.KfuncPlain
	}
	if def, _ := kfuncs.Lookup(info.name); def.Flags&kfuncs.IterNext != 0 {
		return insn.KfuncIterNext
	}
	if info.name == kfuncRBAdd {
		// is_sync_callback_calling_kfunc.
		return insn.KfuncSyncCB
	}
	if info.name == kfuncWqSetCallback || taskWorkKfuncs[info.name] {
		// is_async_callback_calling_kfunc: workqueue and task_work
		// callbacks.
		return insn.KfuncAsyncCB
	}
	return insn.KfuncPlain
}

// isIterNextInsn reports whether insn idx calls an iterator's next kfunc
// (is_iter_next_insn).
func (e *env) isIterNextInsn(idx int) bool {
	if idx < 0 || idx >= len(e.prog) || !e.prog[idx].IsKfuncCall() {
		return false
	}
	return kfuncKind(e.prog[idx]) == insn.KfuncIterNext
}

// iterMeta is what process_iter_arg remembers for the next call.
type iterMeta struct {
	// valid is set once an initialised iterator argument was checked.
	valid bool
	frame int
	spi   int
}

// iterTypeName is the iterator's kind as the kernel's messages print it:
// the struct name without "bpf_iter_".
func iterTypeName(t btf.Type) string {
	name := t.TypeName()
	if len(name) > len(iterStructPrefix) && name[:len(iterStructPrefix)] == iterStructPrefix {
		return name[len(iterStructPrefix):]
	}
	return "<invalid>"
}

// iterArgType is btf_check_iter_arg: the struct an iterator argument
// points to, when it is a bpf_iter_* struct of a whole number of slots.
func iterArgType(ref btf.Type) (btf.Type, int, bool) {
	s, ok := ref.(*btf.Struct)
	if !ok || len(s.Name) <= len(iterStructPrefix) || s.Name[:len(iterStructPrefix)] != iterStructPrefix {
		return nil, 0, false
	}
	if s.Size == 0 || s.Size%states.SlotSize != 0 {
		return nil, 0, false
	}
	return s, int(s.Size) / states.SlotSize, true
}

// stackObjSlot is stack_slot_obj_get_spi: the main slot of the
// nrSlots-slot object of the given kind ("iter", "irq_flag", "dynptr") reg
// points to. inRange is false when the slots are not all allocated yet (the
// kernel's -ERANGE), which only a constructor tolerates. A pointer that
// cannot hold the object gives the kernel's message in bad; the kernel logs
// it and then fails the argument check with a message of its own.
//
// A kernel with stablefix.IterFP0 refuses any offset >= 0. Without it the
// slot index (-off-1)/8 rounds towards zero, so fp+0 names the slot at
// fp-8: the offsets from 8 up still fail the slot count, but a one-slot
// object is found (or built, writing above the frame) through fp+0.
func (e *env) stackObjSlot(reg *states.Reg, kind string, nrSlots int) (spi int, inRange bool, bad string) {
	if !reg.Var.IsConst() {
		return 0, false, kind + " has to be at a constant offset"
	}
	off := int(reg.Off) + int(int64(reg.Var.Value))
	if off%states.SlotSize != 0 || off >= 0 && !e.opts.MissingFixes.Has(stablefix.IterFP0) {
		return 0, false, fmt.Sprintf("cannot pass in %s at an offset=%d", kind, off)
	}
	spi = states.SlotIndex(off)
	if spi+1 < nrSlots {
		return 0, false, fmt.Sprintf("cannot pass in %s at an offset=%d", kind, off)
	}
	f := e.frameOf(reg)
	return spi, spi-nrSlots+1 >= 0 && spi < f.NumSlots(), ""
}

// processIterArg is process_iter_arg: argument regno is an iterator.
func (e *env) processIterArg(info *kfuncInfo, meta *kfuncMeta, regno int, ref btf.Type) error {
	reg := &e.regs()[regno]
	if reg.Type != states.PtrToStack {
		return e.reject(e.insnIdx, "arg#%d expected pointer to an iterator on stack", regno-1)
	}
	typ, nrSlots, ok := iterArgType(ref)
	if !ok {
		return e.reject(e.insnIdx, "expected valid iter pointer as arg #%d", regno-1)
	}
	typeID := btfTypeID(typ)
	if typeID == 0 {
		return e.unsupported(e.insnIdx, "kfunc %s iterator type not in kernel BTF", info.name)
	}
	if meta.flags&kfuncs.IterNew != 0 {
		return e.newIter(meta, regno, typ, typeID, nrSlots)
	}
	spi, inRange, bad := e.stackObjSlot(reg, iterObjKind, nrSlots)
	if bad != "" {
		e.log.errorf(bad)
	}
	f := e.frameOf(reg)
	valid := iterInvalid
	if bad == "" && inRange {
		valid = iterValidInit(f, spi, nrSlots, typeID)
	}
	switch valid {
	case iterInvalid:
		return e.reject(e.insnIdx, "expected an initialized iter_%s as arg #%d", iterTypeName(typ), regno-1)
	case iterUntrusted:
		return e.reject(e.insnIdx, "expected an RCU CS when using %s", info.name)
	}
	for i := 0; i < nrSlots; i++ {
		e.markStackObjRead(reg.FrameNo(), spi-i)
	}
	meta.iter = iterMeta{valid: true, frame: reg.FrameNo(), spi: spi}
	meta.refObjID = f.Slot(spi).Spilled.RefObjID
	if meta.flags&kfuncs.IterDestroy != 0 {
		return e.destroyIter(f, spi, nrSlots)
	}
	return nil
}

// newIter is the constructor's half of process_iter_arg and
// mark_stack_slots_iter.
func (e *env) newIter(meta *kfuncMeta, regno int, typ btf.Type, typeID uint32, nrSlots int) error {
	reg := &e.regs()[regno]
	spi, inRange, bad := e.stackObjSlot(reg, iterObjKind, nrSlots)
	if bad != "" {
		e.log.errorf(bad)
	}
	if bad != "" || inRange && !iterValidUninit(e.frameOf(reg), spi, nrSlots) {
		return e.reject(e.insnIdx, "expected uninitialized iter_%s as arg #%d", iterTypeName(typ), regno-1)
	}
	for off := 0; off < nrSlots*states.SlotSize; off += states.SlotSize {
		if err := e.checkMemAccess(regno, off, states.SlotSize, accWrite, -1, false); err != nil {
			return err
		}
	}
	// The writes may have grown the stack; look the slots up again.
	reg = &e.regs()[regno]
	f := e.frameOf(reg)
	if spi < nrSlots-1 || spi >= f.NumSlots() {
		return e.reject(e.insnIdx, "verifier internal error: iterator slot %d beyond the allocated stack", spi)
	}
	id := e.newID()
	e.cur.Refs = append(e.cur.Refs, states.Ref{ID: id, InsnIdx: int32(e.insnIdx)})
	var flags states.RegFlags
	if meta.flags&kfuncs.RCUProtected != 0 {
		// An RCU-protected iterator (made inside an RCU read section,
		// checkKfuncCall sees to that) is valid until the section ends.
		flags = states.MemRCU
	}
	for i := 0; i < nrSlots; i++ {
		s := f.Slot(spi - i)
		s.Spilled.MarkPtr(states.PtrToStack, flags)
		s.Spilled.Aux = typeID
		s.Spilled.Off = states.IterActive
		s.Spilled.Range = 0
		if i == 0 {
			s.Spilled.RefObjID = id
		}
		for b := range s.Types {
			s.Types[b] = states.StackIter
		}
		e.markStackWrite(int(f.FrameNo), spi-i)
	}
	return nil
}

// iterValidUninit is is_iter_reg_valid_uninit for allocated slots: none
// of them may already hold an iterator.
func iterValidUninit(f *states.Frame, spi, nrSlots int) bool {
	for i := 0; i < nrSlots; i++ {
		for _, t := range f.Slot(spi - i).Types {
			if t == states.StackIter {
				return false
			}
		}
	}
	return true
}

// iterInit is what is_iter_reg_valid_init finds in an iterator argument's
// slots.
type iterInit int

const (
	// iterValid: one iterator of the expected type (0).
	iterValid iterInit = iota
	// iterInvalid: anything else (-EINVAL).
	iterInvalid
	// iterUntrusted: a slot holds an untrusted pointer, such as an RCU
	// iterator after bpf_rcu_read_unlock (-EPROTO).
	iterUntrusted
)

// iterValidInit is is_iter_reg_valid_init: the slots hold one iterator of
// type typeID, with its reference on the main slot only. Each slot is
// tested in the kernel's order, the untrusted mark first, so an untrusted
// iterator of another type is reported as untrusted.
func iterValidInit(f *states.Frame, spi, nrSlots int, typeID uint32) iterInit {
	for i := 0; i < nrSlots; i++ {
		s := f.Slot(spi - i)
		if s.Spilled.Flags&states.PtrUntrusted != 0 && (s.IsSpilledReg() || s.Types[0] == states.StackIter) {
			return iterUntrusted
		}
		if (i == 0) != (s.Spilled.RefObjID != 0) || s.Spilled.Aux != typeID {
			return iterInvalid
		}
		for _, t := range s.Types {
			if t != states.StackIter {
				return iterInvalid
			}
		}
	}
	return iterValid
}

// destroyIter is unmark_stack_slots_iter: release the iterator's
// reference and make its slots never-written.
func (e *env) destroyIter(f *states.Frame, spi, nrSlots int) error {
	if err := e.releaseReference(f.Slot(spi).Spilled.RefObjID); err != nil {
		return err
	}
	for i := 0; i < nrSlots; i++ {
		f.Slot(spi - i).Invalidate()
		e.markStackWrite(int(f.FrameNo), spi-i)
		e.log.markSlotScratched(spi - i)
	}
	return nil
}

// iterSlotOf returns the main slot of the iterator meta describes, in st.
func iterSlotOf(st *states.State, m iterMeta) *states.Slot {
	f := st.Frames[m.frame]
	if f == nil || m.spi >= f.NumSlots() {
		return nil
	}
	return f.Slot(m.spi)
}

// processIterNextCall is process_iter_next_call, after r0 is set to the
// maybe-NULL element pointer: an active iterator forks a state where it
// stays active one level deeper and r0 is not NULL; the current state
// sees it drained and r0 NULL.
func (e *env) processIterNextCall(meta *kfuncMeta) error {
	idx := e.insnIdx
	cur := e.cur
	it := iterSlotOf(cur, meta.iter)
	if !meta.iter.valid || it == nil {
		return e.internal(idx, "iterator next call without an iterator")
	}
	switch it.Spilled.Off {
	case states.IterActive:
		p := cur.Parent
		if p == nil || int(p.InsnIdx) != idx || !p.SameCallsites(cur) {
			return e.internal(idx, "bad parent state for iter next call")
		}
		// The checkpoint just stored for cur at this insn is cur's parent;
		// the previous iteration's is further up.
		prev := e.prevLoopEntry(p, idx)
		queued, err := e.pushStack(idx+1, idx)
		if err != nil {
			return err
		}
		qit := iterSlotOf(queued, meta.iter)
		qit.Spilled.Off = states.IterActive
		qit.Spilled.Range++
		if prev != nil {
			widenLoopScalars(prev, queued)
		}
		r0 := queued.Cur().Reg(0)
		r0.Flags &^= states.MaybeNull
	case states.IterDrained:
	default:
		return e.internal(idx, "unexpected iterator state %d", it.Spilled.Off)
	}
	it.Spilled.Off = states.IterDrained
	e.regs()[0].MarkConst(0)
	return nil
}

// internal reports a broken invariant of the verifier itself (the kernel's
// verifier_bug).
func (e *env) internal(idx int, format string, args ...any) error {
	msg := "verifier bug: " + fmt.Sprintf(format, args...)
	e.log.errorf(msg)
	return &RejectError{Insn: idx, Msg: msg, kind: ErrInternal}
}

// prevLoopEntry is find_prev_entry with an explicit starting state: the
// most recent checkpoint at idx that is an ancestor of st on the current
// path (its paths are still open and it is shallower), in st's call chain:
// the previous loop iteration.
func (e *env) prevLoopEntry(st *states.State, idx int) *states.State {
	var found *states.State
	callsite := st.Frames[st.CurFrame].CallSite
	e.store.Walk(int32(idx), callsite, func(sl *prune.Entry) bool {
		old := sl.State
		if int(old.InsnIdx) == idx && old.Branches > 0 && old.SameCallsites(st) && old.DFSDepth < st.DFSDepth {
			found = old
			return false
		}
		return true
	})
	return found
}

// widenLoopScalars is widen_imprecise_scalars for iterator and may_goto
// loops and callbacks: every scalar of cur (registers and spilled slots, all frames)
// that differs from the same scalar in old, the previous iteration's
// checkpoint, and is precise in neither becomes unknown, so that a loop
// counter nobody relies on does not keep iterations apart. Scalars that
// are equal keep their value. As in the kernel, one id correspondence
// spans the whole state.
func widenLoopScalars(old, cur *states.State) {
	var ids idMap
	for fr := int(old.CurFrame); fr >= 0; fr-- {
		fo, fc := old.Frames[fr], cur.Frames[fr]
		for i := range states.NumRegs {
			maybeWidenReg(&ids, fo.Reg(i), fc.Reg(i))
		}
		n := min(fo.NumSlots(), fc.NumSlots())
		for i := 0; i < n; i++ {
			if !fo.Slot(i).IsSpilledReg() || !fc.Slot(i).IsSpilledReg() {
				continue
			}
			maybeWidenReg(&ids, &fo.Slot(i).Spilled, &fc.Slot(i).Spilled)
		}
	}
}

// maybeWidenReg is maybe_widen_reg.
func maybeWidenReg(ids *idMap, old, cur *states.Reg) {
	if old.Type != states.ScalarValue || cur.Type != old.Type {
		return
	}
	if old.Precise() || cur.Precise() || ids.regsExact(old, cur) {
		return
	}
	cur.MarkUnknown(false)
}

// idMap is the old id → cur id correspondence regs_exact builds (the
// kernel's idmap_scratch, reset once per widening).
type idMap struct {
	pairs [][2]uint32
}

// check is check_ids: zero matches zero, and a non-zero id keeps one
// partner on each side.
func (m *idMap) check(old, cur uint32) bool {
	if old == 0 || cur == 0 {
		return old == cur
	}
	for _, p := range m.pairs {
		if p[0] == old {
			return p[1] == cur
		}
		if p[1] == cur {
			return false
		}
	}
	m.pairs = append(m.pairs, [2]uint32{old, cur})
	return true
}

// regsExact is regs_exact: identical values, ids equal up to renaming.
func (m *idMap) regsExact(old, cur *states.Reg) bool {
	return old.Type == cur.Type && old.Flags == cur.Flags && old.Off == cur.Off &&
		old.Range == cur.Range && old.Aux == cur.Aux && old.Buf == cur.Buf && old.Scalar.Equal(&cur.Scalar) &&
		m.check(old.ID, cur.ID) && m.check(old.RefObjID, cur.RefObjID)
}

// iterActiveDepthsDiffer is iter_active_depths_differ: some iterator that
// is active in old has another depth in cur, so the two states are
// different iterations, not a loop without progress.
func iterActiveDepthsDiffer(old, cur *states.State) bool {
	for fr := int(old.CurFrame); fr >= 0; fr-- {
		fo, fc := old.Frames[fr], cur.Frames[fr]
		for i := range fo.NumSlots() {
			s := fo.Slot(i)
			if s.Types[0] != states.StackIter || s.Spilled.Off != states.IterActive {
				continue
			}
			if i >= fc.NumSlots() || fc.Slot(i).Spilled.Range != s.Spilled.Range {
				return true
			}
		}
	}
	return false
}

// iterNextLoopHit is the iterator part of isStateVisited's loop branch:
// cur, at a next call, is within old (an ancestor at the same insn), and
// the iterator being stepped is still active: the loop has converged.
func (e *env) iterNextLoopHit(old, cur *states.State) bool {
	// The kernel reads the current iterator only once the states compare
	// equal, but the answer is a miss whatever the comparison says when
	// that iterator is not active: it is asked first, which spares a
	// drained iterator's path a full comparison with every state of its
	// own past iterations.
	return iterActiveAtNext(cur) && e.eq.StatesEqual(old, cur, states.RangeWithin)
}

// iterActiveAtNext reports whether cur, at an iterator's next call, holds
// an active iterator where r1 points (is_state_visited reads the slot at
// r1's constant offset; btf_check_iter_kfuncs makes the iterator the
// first argument).
func iterActiveAtNext(cur *states.State) bool {
	r1 := &cur.Cur().Regs()[1]
	if r1.Type != states.PtrToStack || !r1.Var.IsConst() {
		return false
	}
	f := cur.Frames[r1.FrameNo()]
	spi := states.SlotIndex(int(r1.Off) + int(int64(r1.Var.Value)))
	if f == nil || spi < 0 || spi >= f.NumSlots() {
		return false
	}
	return f.Slot(spi).Spilled.Off == states.IterActive
}
