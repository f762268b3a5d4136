package verifier

// Dynptrs: the kernel's struct bpf_dynptr, a 16-byte object a helper builds
// in the program's stack and later helpers read, write or release.
//
// A dynptr occupies two stack slots whose bytes are all StackDynptr. Its
// state lives in the slots' Spilled register (states/stack.go): Aux is the
// dynptr type, Off is 1 on the first (higher) slot and 0 on the second, ID
// the dynptr's own id (which the slices bpf_dynptr_data returns remember in
// their Aux), and RefObjID, for ringbuf dynptrs, the reference of the
// reserved record: a ringbuf dynptr must be submitted or discarded before
// the program exits.
//
//   - A constructor (bpf_dynptr_from_mem, bpf_ringbuf_reserve_dynptr)
//     wants a stack pointer at a constant, slot-aligned offset; it writes
//     the 16 bytes as two 8-byte stores (growing the stack and destroying
//     an unreferenced dynptr already there) and marks them a new dynptr.
//   - Readers (bpf_dynptr_read/write/data) want an initialised dynptr of
//     any type; bpf_ringbuf_submit_dynptr and bpf_ringbuf_discard_dynptr
//     want a ringbuf one and release it, clones included.
//   - A store that touches either slot of an unreferenced dynptr destroys
//     it and every slice taken from it; over a referenced one it is
//     rejected ("cannot overwrite referenced dynptr").
//
// A callback of bpf_user_ringbuf_drain gets a ConstPtrToDynptr instead of
// a stack pointer: it may read through it, never mutate or release it.
//
// kfuncs take dynptrs too (process_dynptr_func through check_kfunc_args):
// bpf_dynptr_from_skb and bpf_dynptr_from_xdp build packet dynptrs in a
// "__uninit" argument, bpf_dynptr_clone builds a copy of the same type
// sharing the original's reference, and the others read an initialised
// dynptr of any type (a ConstPtrToDynptr included: a kfunc never mutates
// it). bpf_dynptr_slice(_rdwr) returns memory tied to the dynptr by its id
// and marked dynptrSliceKfunc (the kernel's DYNPTR_TYPE_* flag on the
// register), which a store over the dynptr does not destroy; a slice of a
// packet dynptr also carries dynptrSlicePkt, so that whatever may move the
// packet (a helper that changes packet data, bpf_dynptr_write into an skb
// dynptr) destroys it with the direct packet pointers.

import (
	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// dynptrType is the kernel's enum bpf_dynptr_type.
type dynptrType uint32

// Dynptr types (the kernel's numbering).
const (
	dynptrInvalid dynptrType = iota
	dynptrLocal
	dynptrRingbuf
	dynptrSKB
	dynptrXDP
	// dynptrSKBMeta is the metadata area in front of an skb's packet
	// data (bpf_dynptr_from_skb_meta).
	dynptrSKBMeta
)

// String names a dynptr type as the kernel's dynptr_type_str.
func (t dynptrType) String() string {
	switch t {
	case dynptrLocal:
		return "local"
	case dynptrRingbuf:
		return "ringbuf"
	case dynptrSKB:
		return "skb"
	case dynptrXDP:
		return "xdp"
	case dynptrSKBMeta:
		return "skb_meta"
	}
	return "<invalid>"
}

// refcounted is dynptr_type_refcounted: dynptrs that hold a reference.
func (t dynptrType) refcounted() bool { return t == dynptrRingbuf }

// isPacket reports the dynptr types over packet data (and the skb's
// metadata in front of it), whose slices a packet change invalidates
// (reg_is_dynptr_slice_pkt).
func (t dynptrType) isPacket() bool { return t == dynptrSKB || t == dynptrXDP || t == dynptrSKBMeta }

// writeMovesPacket reports the dynptr types a bpf_dynptr_write into may
// move the packet (check_helper_call's BPF_FUNC_dynptr_write case).
func (t dynptrType) writeMovesPacket() bool { return t == dynptrSKB || t == dynptrSKBMeta }

// dynptrStructName is the struct a kfunc's dynptr argument points to.
const dynptrStructName = "bpf_dynptr"

// dynptrSlicePkt marks, in the Aux (dynptr id) of a slice, a slice of a
// packet dynptr: the kernel keeps it as a type flag, so two slices that
// differ only in it are different types; here the id differs. Dynptr ids
// come from the per-program id counter and never reach this bit.
const dynptrSlicePkt = 1 << 31

// dynptrSliceKfunc marks, in the Aux of a slice, one a kfunc returned
// (bpf_dynptr_slice(_rdwr)): the kernel types it PTR_TO_MEM with its
// dynptr's DYNPTR_TYPE_* flag, and destroy_if_dynptr_stack_slot only
// invalidates plain PTR_TO_MEM slices (bpf_dynptr_data's), so overwriting
// the dynptr leaves a kfunc slice alive.
const dynptrSliceKfunc = 1 << 30

// isDynptrPktSlice is reg_is_dynptr_slice_pkt: a slice of a packet
// dynptr.
func isDynptrPktSlice(r *states.Reg) bool {
	return r.Type == states.PtrToMem && r.Aux&dynptrSlicePkt != 0
}

// dynptrMeta is the kernel's initialized_dynptr of a kfunc call: the last
// initialised dynptr argument.
type dynptrMeta struct {
	id  uint32
	typ dynptrType
	ref uint32
}

// dynptrNrSlots is BPF_DYNPTR_NR_SLOTS: a dynptr is 16 bytes, two slots.
const dynptrNrSlots = 2

// dynptrObjKind names a dynptr in the messages of stack_slot_obj_get_spi.
const dynptrObjKind = "dynptr"

// dynptrSize is BPF_DYNPTR_SIZE in bytes.
const dynptrSize = dynptrNrSlots * states.SlotSize

// Values of Spilled.Off telling a dynptr's two slots apart.
const (
	dynptrSecondSlot = 0
	dynptrFirstSlot  = 1
)

// dynptrArgMode is what a helper does with its dynptr argument (the
// MEM_UNINIT / MEM_RDONLY / OBJ_RELEASE flags of ARG_PTR_TO_DYNPTR).
type dynptrArgMode uint8

const (
	dynptrArgInit    dynptrArgMode = iota // builds a new dynptr (MEM_UNINIT)
	dynptrArgRead                         // reads an initialised one (MEM_RDONLY)
	dynptrArgRelease                      // releases an initialised one (OBJ_RELEASE)
)

// dynptrArgSpec is the dynptr argument of one helper: its mode and the
// dynptr type it wants (dynptrInvalid: any type).
type dynptrArgSpec struct {
	mode dynptrArgMode
	typ  dynptrType
	// cloneRef is, for a clone of a reference-counted dynptr, the
	// reference the clone shares with its parent.
	cloneRef uint32
}

// Helper ids with dynptr arguments or special handling.
const (
	fnDynptrFromMem        = 197
	fnRingbufReserveDynptr = 198
	fnRingbufSubmitDynptr  = 199
	fnRingbufDiscardDynptr = 200
	fnDynptrRead           = 201
	fnDynptrWrite          = 202
	fnDynptrData           = 203
)

// dynptrHelperArgs are the 6.18 prototypes' dynptr argument flags, keyed
// by helper id (kernel/bpf/helpers.c and ringbuf.c).
var dynptrHelperArgs = map[int32]dynptrArgSpec{
	fnDynptrFromMem:        {mode: dynptrArgInit, typ: dynptrLocal},
	fnRingbufReserveDynptr: {mode: dynptrArgInit, typ: dynptrRingbuf},
	fnRingbufSubmitDynptr:  {mode: dynptrArgRelease, typ: dynptrRingbuf},
	fnRingbufDiscardDynptr: {mode: dynptrArgRelease, typ: dynptrRingbuf},
	fnDynptrRead:           {mode: dynptrArgRead},
	fnDynptrWrite:          {mode: dynptrArgRead},
	fnDynptrData:           {mode: dynptrArgRead},
}

// dynptrSlotIndex is dynptr_get_spi: the first slot of the dynptr a stack
// pointer points to. inRange is false when the two slots are not both
// allocated (the kernel's -ERANGE). A pointer that cannot hold a dynptr
// gives the message the kernel logs in bad.
func (e *env) dynptrSlotIndex(reg *states.Reg) (spi int, inRange bool, bad string) {
	return e.stackObjSlot(reg, dynptrObjKind, dynptrNrSlots)
}

// dynptrAt reports whether the two slots starting at spi hold one
// initialised dynptr (the stack half of is_dynptr_reg_valid_init).
func dynptrAt(f *states.Frame, spi int) bool {
	if spi < dynptrNrSlots-1 || spi >= f.NumSlots() || f.Slot(spi).Spilled.Off != dynptrFirstSlot {
		return false
	}
	for i := 0; i < dynptrNrSlots; i++ {
		for _, t := range f.Slot(spi - i).Types {
			if t != states.StackDynptr {
				return false
			}
		}
	}
	return true
}

// dynptrState returns the register describing the dynptr reg points to:
// reg itself for a ConstPtrToDynptr, else its first stack slot's. It
// returns nil when there is none.
func (e *env) dynptrState(reg *states.Reg) *states.Reg {
	if reg.Type == states.ConstPtrToDynptr {
		return reg
	}
	if reg.Type != states.PtrToStack {
		return nil
	}
	spi, inRange, bad := e.dynptrSlotIndex(reg)
	if bad != "" || !inRange {
		return nil
	}
	f := e.frameOf(reg)
	if !dynptrAt(f, spi) {
		return nil
	}
	return &f.Slot(spi).Spilled
}

// checkDynptrArg is the ARG_PTR_TO_DYNPTR part of check_func_arg: the
// register's type, its offset, the release precondition, then
// process_dynptr_func.
func (e *env) checkDynptrArg(regno int, fn *helpers.Proto) error {
	spec, ok := dynptrHelperArgs[fn.ID]
	if !ok {
		return e.unsupported(e.insnIdx, "dynptr argument of helper %s#%d", fn.Name, fn.ID)
	}
	reg := &e.regs()[regno]
	switch reg.Type {
	case states.PtrToStack:
	case states.ConstPtrToDynptr:
		if spec.mode == dynptrArgRelease {
			if reg.Off != 0 {
				return e.reject(e.insnIdx, "R%d must have zero offset when passed to release func or trusted arg to kfunc", regno)
			}
		}
		if err := e.checkPtrOffReg(reg, regno, false); err != nil {
			return err
		}
	default:
		return e.reject(e.insnIdx, "R%d type=%s expected=fp, dynptr_ptr", regno, regTypeStr(reg))
	}
	if spec.mode == dynptrArgRelease {
		if reg.Type != states.PtrToStack {
			return e.reject(e.insnIdx, "cannot release unowned const bpf_dynptr")
		}
		spi, inRange, bad := e.dynptrSlotIndex(reg)
		if bad != "" {
			e.log.errorf(bad)
		}
		if bad != "" || !inRange || e.frameOf(reg).Slot(spi).Spilled.RefObjID == 0 {
			return e.reject(e.insnIdx, "arg %d is an unacquired reference", regno)
		}
	}
	return e.processDynptrFunc(regno, spec)
}

// processDynptrFunc is process_dynptr_func.
func (e *env) processDynptrFunc(regno int, spec dynptrArgSpec) error {
	reg := &e.regs()[regno]
	if spec.mode == dynptrArgInit {
		// is_dynptr_reg_valid_uninit: any constant, aligned stack offset
		// will do; an unreferenced dynptr already there is overwritten.
		bad := ""
		if reg.Type == states.PtrToStack {
			_, _, bad = e.dynptrSlotIndex(reg)
			if bad != "" {
				e.log.errorf(bad)
			}
		}
		if reg.Type != states.PtrToStack || bad != "" {
			return e.reject(e.insnIdx, "Dynptr has to be an uninitialized dynptr")
		}
		for off := 0; off < dynptrSize; off += states.SlotSize {
			if err := e.checkMemAccess(regno, off, states.SlotSize, accWrite, -1, false); err != nil {
				return err
			}
		}
		return e.markStackSlotsDynptr(regno, spec.typ, spec.cloneRef)
	}
	if reg.Type == states.ConstPtrToDynptr && spec.mode != dynptrArgRead {
		return e.reject(e.insnIdx, "cannot pass pointer to const bpf_dynptr, the helper mutates it")
	}
	d := e.dynptrState(reg)
	if reg.Type == states.PtrToStack {
		if _, _, bad := e.dynptrSlotIndex(reg); bad != "" {
			e.log.errorf(bad)
		}
	}
	if d == nil {
		return e.reject(e.insnIdx, "Expected an initialized dynptr as arg #%d", regno-1)
	}
	if spec.typ != dynptrInvalid && dynptrType(d.Aux) != spec.typ {
		return e.reject(e.insnIdx, "Expected a dynptr of type %s as arg #%d", spec.typ, regno-1)
	}
	if reg.Type == states.PtrToStack {
		spi, _, _ := e.dynptrSlotIndex(reg)
		for i := 0; i < dynptrNrSlots; i++ {
			e.markStackObjRead(reg.FrameNo(), spi-i)
		}
	}
	return nil
}

// markStackSlotsDynptr is mark_stack_slots_dynptr: after the constructor's
// writes, the two slots become a dynptr of type typ, with a reference when
// the type is refcounted: cloneRef for a clone, else a new one.
func (e *env) markStackSlotsDynptr(regno int, typ dynptrType, cloneRef uint32) error {
	reg := &e.regs()[regno]
	spi, inRange, bad := e.dynptrSlotIndex(reg)
	f := e.frameOf(reg)
	if bad != "" || !inRange {
		return e.internal(e.insnIdx, "dynptr slot %d beyond the allocated stack", spi)
	}
	for i := 0; i < dynptrNrSlots; i++ {
		if err := e.destroyIfDynptrSlot(f, spi-i); err != nil {
			return err
		}
	}
	id := e.newID()
	for i := 0; i < dynptrNrSlots; i++ {
		s := f.Slot(spi - i)
		s.Spilled.MarkPtr(states.ConstPtrToDynptr, 0)
		s.Spilled.ID = id
		s.Spilled.Aux = uint32(typ)
		s.Spilled.Off = dynptrSecondSlot
		if i == 0 {
			s.Spilled.Off = dynptrFirstSlot
		}
		for b := range s.Types {
			s.Types[b] = states.StackDynptr
		}
	}
	if typ.refcounted() {
		ref := cloneRef
		if ref == 0 {
			ref = e.newID()
			e.cur.Refs = append(e.cur.Refs, states.Ref{ID: ref, InsnIdx: int32(e.insnIdx)})
		}
		for i := 0; i < dynptrNrSlots; i++ {
			f.Slot(spi - i).Spilled.RefObjID = ref
		}
	}
	e.markDynptrWrite(f, spi)
	return nil
}

// markDynptrWrite records, for stack liveness, that the current insn
// wrote both slots of the dynptr whose first slot is spi: made, destroyed
// or invalidated it (bpf_mark_stack_write).
func (e *env) markDynptrWrite(f *states.Frame, spi int) {
	for i := 0; i < dynptrNrSlots; i++ {
		e.markStackWrite(int(f.FrameNo), spi-i)
	}
}

// invalidateDynptr makes both slots of the dynptr whose first slot is spi
// never-written.
func (e *env) invalidateDynptr(f *states.Frame, spi int) {
	for i := 0; i < dynptrNrSlots; i++ {
		f.Slot(spi - i).Invalidate()
	}
	e.markDynptrWrite(f, spi)
}

// unmarkStackSlotsDynptr is unmark_stack_slots_dynptr: the release half of
// bpf_ringbuf_submit_dynptr and discard_dynptr. The reference goes, with
// every register holding it (the slices) and every dynptr sharing it: in
// the released dynptr's frame (6.18.0), in every frame with
// stablefix.DynptrCloneAllFrames.
func (e *env) unmarkStackSlotsDynptr(regno int) error {
	reg := &e.regs()[regno]
	spi, inRange, bad := e.dynptrSlotIndex(reg)
	f := e.frameOf(reg)
	if bad != "" || !inRange || !dynptrAt(f, spi) {
		return e.internal(e.insnIdx, "release of a dynptr that is not initialised")
	}
	d := &f.Slot(spi).Spilled
	if !dynptrType(d.Aux).refcounted() {
		e.invalidateDynptr(f, spi)
		return nil
	}
	ref := d.RefObjID
	if err := e.releaseReference(ref); err != nil {
		return err
	}
	frames := []*states.Frame{f}
	if !e.opts.MissingFixes.Has(stablefix.DynptrCloneAllFrames) {
		// The clones in every frame go, not only those beside the
		// released dynptr.
		frames = e.cur.Frames[:e.cur.CurFrame+1]
	}
	for _, f := range frames {
		for i := 1; i < f.NumSlots(); i++ {
			s := f.Slot(i)
			if s.Spilled.RefObjID != ref {
				continue
			}
			if s.Types[0] != states.StackDynptr {
				// A slot of plain data that once held a slice of
				// this dynptr (forgetSpilledReg).
				return e.verifierBug("misconfigured ref_obj_id")
			}
			if s.Spilled.Off == dynptrFirstSlot {
				e.invalidateDynptr(f, i)
			}
		}
	}
	return nil
}

// destroyIfDynptrSlot is destroy_if_dynptr_stack_slot: a write to slot spi
// of frame f destroys the dynptr there, if any, and the slices taken from
// it; a referenced dynptr cannot be overwritten.
func (e *env) destroyIfDynptrSlot(f *states.Frame, spi int) error {
	if spi < 0 || spi >= f.NumSlots() || f.Slot(spi).Types[0] != states.StackDynptr {
		return nil
	}
	if f.Slot(spi).Spilled.Off != dynptrFirstSlot {
		spi++
	}
	if spi >= f.NumSlots() {
		return e.internal(e.insnIdx, "dynptr second slot without its first")
	}
	d := f.Slot(spi).Spilled
	if dynptrType(d.Aux).refcounted() {
		return e.reject(e.insnIdx, "cannot overwrite referenced dynptr")
	}
	e.log.markSlotScratched(spi)
	e.log.markSlotScratched(spi - 1)
	for i := 0; i < dynptrNrSlots; i++ {
		for b := range f.Slot(spi - i).Types {
			f.Slot(spi - i).Types[b] = states.StackInvalid
		}
	}
	forEachReg(e.cur, func(r *states.Reg) {
		if r.Type == states.PtrToMem && r.Flags&^states.MaybeNull == 0 && r.Aux == d.ID {
			e.markUnknown(r)
		}
	})
	for i := 0; i < dynptrNrSlots; i++ {
		f.Slot(spi - i).Spilled.MarkNotInit()
	}
	e.markDynptrWrite(f, spi)
	return nil
}

// dynptrDataMeta is what bpf_dynptr_data's r0 inherits from its dynptr:
// the dynptr's id and reference.
func (e *env) dynptrDataMeta(fn *helpers.Proto) (id, ref uint32, err error) {
	for i, a := range fn.Args {
		if a != helpers.ArgPtrToDynptr {
			continue
		}
		d := e.dynptrState(&e.regs()[i+1])
		if d == nil {
			return 0, 0, e.internal(e.insnIdx, "failed to obtain dynptr id")
		}
		return d.ID, d.RefObjID, nil
	}
	return 0, 0, e.internal(e.insnIdx, "no dynptr arg found")
}

// markDynptrCallbackReg is mark_dynptr_cb_reg: a callback's argument that
// points to a dynptr it may only read.
func (e *env) markDynptrCallbackReg(r *states.Reg, typ dynptrType) {
	r.MarkPtr(states.ConstPtrToDynptr, 0)
	r.ID = e.newID()
	r.Aux = uint32(typ)
	r.Off = 0
}

// kfuncDynptrTypes are the dynptr types the constructor kfuncs build.
var kfuncDynptrTypes = map[string]dynptrType{
	"bpf_dynptr_from_skb":      dynptrSKB,
	"bpf_dynptr_from_xdp":      dynptrXDP,
	"bpf_dynptr_from_skb_meta": dynptrSKBMeta,
}

// processKfuncDynptrArg is the KF_ARG_PTR_TO_DYNPTR case of
// check_kfunc_args: argument regno points to a dynptr the kfunc builds
// (uninit, a "__uninit" parameter) or reads.
func (e *env) processKfuncDynptrArg(meta *kfuncMeta, regno int, uninit bool) error {
	reg := &e.regs()[regno]
	if reg.Type != states.PtrToStack && reg.Type != states.ConstPtrToDynptr {
		return e.reject(e.insnIdx, "arg#%d expected pointer to stack or const struct bpf_dynptr", regno-1)
	}
	spec := dynptrArgSpec{mode: dynptrArgRead}
	if uninit {
		if reg.Type == states.ConstPtrToDynptr {
			// A const dynptr is read-only, and read-only and
			// uninitialised exclude each other.
			return e.internal(e.insnIdx, "misconfigured dynptr helper type flags")
		}
		spec.mode = dynptrArgInit
		switch {
		case kfuncDynptrTypes[meta.name] != dynptrInvalid:
			spec.typ = kfuncDynptrTypes[meta.name]
		case meta.name == "bpf_dynptr_clone":
			parent := meta.dynptr
			if parent.typ == dynptrInvalid {
				return e.internal(e.insnIdx, "no dynptr type for parent of clone")
			}
			if parent.typ.refcounted() && parent.ref == 0 {
				return e.internal(e.insnIdx, "missing ref obj id for parent of clone")
			}
			spec.typ, spec.cloneRef = parent.typ, parent.ref
		default:
			return e.unsupported(e.insnIdx, "kfunc %s building a dynptr", meta.name)
		}
	}
	if err := e.processDynptrFunc(regno, spec); err != nil {
		return err
	}
	if uninit {
		return nil
	}
	d := e.dynptrState(&e.regs()[regno])
	if d == nil {
		return e.internal(e.insnIdx, "failed to obtain dynptr id")
	}
	meta.dynptr = dynptrMeta{id: d.ID, typ: dynptrType(d.Aux), ref: d.RefObjID}
	return nil
}

// dynptrArgIsSKB reports whether the dynptr argument of helper fn is an
// skb dynptr or an skb metadata one (the BPF_FUNC_dynptr_write case of
// check_helper_call).
func (e *env) dynptrArgIsSKB(fn *helpers.Proto) bool {
	for i, a := range fn.Args {
		if a != helpers.ArgPtrToDynptr {
			continue
		}
		d := e.dynptrState(&e.regs()[i+1])
		return d != nil && dynptrType(d.Aux).writeMovesPacket()
	}
	return false
}
