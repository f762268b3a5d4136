package verifier

// Interrupt-disabled sections: bpf_local_irq_save/restore and the
// _irqsave/_irqrestore forms of the resilient spin locks (the kernel's
// process_irq_flag, mark_stack_slot_irq_flag, unmark_stack_slot_irq_flag).
//
// A save takes a pointer to an 8-byte stack slot holding no saved flags,
// writes it, and makes it a StackIRQFlag slot whose Spilled register holds
// the section's reference (RefObjID, a RefKindIRQ reference) and the class
// of kfuncs that saved it (Aux). The state's ActiveIRQID names the
// innermost open section; a restore must name exactly that one, with a
// kfunc of the same class, and then the section before it becomes the
// innermost. A path may not leave the main program with a section open
// (checkResourceLeak), and nothing that might sleep is called inside one.

import (
	"github.com/vercheck/vercheck/states"
)

// The kfuncs of interrupt-disabled sections and resilient locks.
const (
	kfuncIRQSave              = "bpf_local_irq_save"
	kfuncIRQRestore           = "bpf_local_irq_restore"
	kfuncResSpinLock          = "bpf_res_spin_lock"
	kfuncResSpinUnlock        = "bpf_res_spin_unlock"
	kfuncResSpinLockIRQSave   = "bpf_res_spin_lock_irqsave"
	kfuncResSpinUnlockIRQRest = "bpf_res_spin_unlock_irqrestore"
)

// irqFlagObjKind names an irq flag in the messages of
// stack_slot_obj_get_spi.
const irqFlagObjKind = "irq_flag"

// irqFlagArgSuffix marks a kfunc parameter that is an irq flag
// (is_kfunc_arg_irq_flag).
const irqFlagArgSuffix = "__irq_flag"

// irqClass is the class of kfuncs that saved an irq flag (the kernel's
// IRQ_NATIVE_KFUNC, IRQ_LOCK_KFUNC): flags saved by one class are
// restored by the same class only.
type irqClass uint32

const (
	irqNative irqClass = iota + 1
	irqLock
)

// String names the class as the kernel's message does.
func (c irqClass) String() string {
	if c == irqNative {
		return "native"
	}
	return "lock"
}

// irqFlagOp says what an irq flag kfunc does with its flag argument: save
// or restore, and with which class of kfuncs. ok is false for a kfunc
// that takes no irq flag.
func irqFlagOp(name string) (save bool, class irqClass, ok bool) {
	switch name {
	case kfuncIRQSave:
		return true, irqNative, true
	case kfuncIRQRestore:
		return false, irqNative, true
	case kfuncResSpinLockIRQSave:
		return true, irqLock, true
	case kfuncResSpinUnlockIRQRest:
		return false, irqLock, true
	}
	return false, 0, false
}

// processIRQFlag is process_irq_flag: argument i (register i+1), a
// pointer to the stack, saves into or restores from an irq flag.
func (e *env) processIRQFlag(name string, i int) error {
	regno := i + 1
	save, class, ok := irqFlagOp(name)
	if !ok {
		return e.verifierBug("unknown irq flags kfunc")
	}
	if save {
		return e.saveIRQFlag(regno, i, class)
	}
	return e.restoreIRQFlag(regno, i, class)
}

// saveIRQFlag is the save half of process_irq_flag: the slot must hold no
// saved flags (is_irq_flag_reg_valid_uninit); it is written as a store
// would, then opens a section (mark_stack_slot_irq_flag).
func (e *env) saveIRQFlag(regno, i int, class irqClass) error {
	reg := &e.regs()[regno]
	spi, inRange, bad := e.stackObjSlot(reg, irqFlagObjKind, 1)
	if bad != "" {
		e.log.errorf(bad)
	}
	if bad != "" || inRange && slotHasIRQFlag(e.frameOf(reg).Slot(spi)) {
		return e.reject(e.insnIdx, "expected uninitialized irq flag as arg#%d", i)
	}
	if err := e.checkMemAccess(regno, 0, states.SlotSize, accWrite, -1, false); err != nil {
		return err
	}
	// The write may have grown the stack; look the slot up again.
	reg = &e.regs()[regno]
	f := e.frameOf(reg)
	if spi >= f.NumSlots() {
		return e.verifierBug("irq flag slot %d beyond the allocated stack", spi)
	}
	id := e.newID()
	e.cur.Refs = append(e.cur.Refs, states.Ref{ID: id, InsnIdx: int32(e.insnIdx), Kind: states.RefKindIRQ})
	e.cur.ActiveIRQID = id
	s := f.Slot(spi)
	e.markStackWrite(reg.FrameNo(), spi)
	s.Spilled.MarkPtr(states.PtrToStack, 0)
	s.Spilled.RefObjID = id
	s.Spilled.Aux = uint32(class)
	for b := range s.Types {
		s.Types[b] = states.StackIRQFlag
	}
	e.log.markSlotScratched(spi)
	return nil
}

// slotHasIRQFlag reports whether any byte of s is part of saved irq flags.
func slotHasIRQFlag(s *states.Slot) bool {
	for _, t := range s.Types {
		if t == states.StackIRQFlag {
			return true
		}
	}
	return false
}

// restoreIRQFlag is the restore half of process_irq_flag: the slot must
// hold saved flags (is_irq_flag_reg_valid_init), which it reads; they
// close the innermost section (unmark_stack_slot_irq_flag) and the slot
// becomes never-written.
func (e *env) restoreIRQFlag(regno, i int, class irqClass) error {
	reg := &e.regs()[regno]
	spi, inRange, bad := e.stackObjSlot(reg, irqFlagObjKind, 1)
	if bad != "" {
		e.log.errorf(bad)
	}
	f := e.frameOf(reg)
	if bad != "" || !inRange || !irqFlagValidInit(f.Slot(spi)) {
		return e.reject(e.insnIdx, "expected an initialized irq flag as arg#%d", i)
	}
	e.markStackObjRead(reg.FrameNo(), spi)
	s := f.Slot(spi)
	if saved := irqClass(s.Spilled.Aux); saved != class {
		return e.reject(e.insnIdx, "irq flag acquired by %s kfuncs cannot be restored with %s kfuncs", saved, class)
	}
	if err := e.releaseIRQ(s.Spilled.RefObjID); err != nil {
		return err
	}
	s.Invalidate()
	e.markStackWrite(reg.FrameNo(), spi)
	e.log.markSlotScratched(spi)
	return nil
}

// irqFlagValidInit is is_irq_flag_reg_valid_init for an allocated slot:
// every byte holds saved irq flags, with their reference.
func irqFlagValidInit(s *states.Slot) bool {
	if s.Spilled.RefObjID == 0 {
		return false
	}
	for _, t := range s.Types {
		if t != states.StackIRQFlag {
			return false
		}
	}
	return true
}

// releaseIRQ is release_irq_state: the section with reference id must be
// the innermost one; it is closed and the one opened before it becomes
// the innermost.
func (e *env) releaseIRQ(id uint32) error {
	st := e.cur
	if id != st.ActiveIRQID {
		at := int32(0)
		for _, r := range st.Refs {
			if r.ID == st.ActiveIRQID {
				at = r.InsnIdx
				break
			}
		}
		return e.reject(e.insnIdx, "cannot restore irq state out of order, expected id=%d acquired at insn_idx=%d", st.ActiveIRQID, at)
	}
	prev := uint32(0)
	for i, r := range st.Refs {
		if r.Kind != states.RefKindIRQ {
			continue
		}
		if r.ID == id {
			st.Refs = append(st.Refs[:i], st.Refs[i+1:]...)
			st.ActiveIRQID = prev
			return nil
		}
		prev = r.ID
	}
	return e.verifierBug("irq state %d not found", id)
}
