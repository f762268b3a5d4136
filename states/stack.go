package states

import "math/bits"

// The stack of one frame.
//
// A frame's stack grows downwards from the frame pointer: Slot(spi) is the
// 8-byte slot at [fp-8*(spi+1), fp-8*spi), and its Types[i] describe the
// byte at fp-8*(spi+1)+i. Only the slots the program has touched are
// allocated; a byte outside the allocation reads as StackInvalid.
//
// Two layouts hold the slots. A working frame is dense, one Slot per
// allocated slot, since the interpreter reads and writes them all. A held
// state (a stored checkpoint, an SCC back-edge state, a pending branch
// beyond the 64th) is packed: only the slots some byte of which was
// written are kept, with a bit mask of which they are. Held states are
// most of the memory a search uses (hundreds of thousands may be alive at
// once, each with up to 64 slots of ~100 bytes), most of their slots are
// never written (a program that touches fp-512 once allocates all 64),
// and the cost of holding them is the first touch of fresh memory; the
// kernel keeps them dense, which decides no answer.
//
// Slot.Spilled holds the register state of a spilled register (StackSpill).
// The kinds the verifier keeps as whole objects on the stack reuse the same
// register by convention, so that equivalence can compare them:
//   - StackDynptr: Aux is the dynptr type, Off is 1 on the dynptr's first
//     slot and 0 on its second, ID the dynptr's id (its slices keep it in
//     their Aux), RefObjID its reference.
//   - StackIter: Aux is the iterator's BTF type id, Off its state (active,
//     drained), Range its depth (never compared), RefObjID its reference
//     (main slot only).
//   - StackIRQFlag: Aux is the kfunc class, RefObjID the irq reference.

// IterState is the state of an open-coded iterator, kept in the Off field
// of its stack slots' Spilled register (the kernel's enum bpf_iter_state).
type IterState = int32

// Iterator states.
const (
	// IterInvalid is the zero value: no iterator.
	IterInvalid IterState = iota
	// IterActive: the iterator may still return elements; a next call
	// forks a state that got one and a state that got none.
	IterActive
	// IterDrained: a next call returned NULL, and every later one will
	// too (the "sticky NULL" contract that makes iterator loops finite).
	IterDrained
)

// maxSlots is the number of slots in a full frame stack.
const maxSlots = MaxStack / SlotSize

// lastByte is the index of the highest byte of a slot: the byte a 64-bit
// spill and a sub-register spill both mark, so it decides "is spilled".
const lastByte = SlotSize - 1

// AllocatedStack returns the number of stack bytes the frame has allocated,
// always a multiple of SlotSize.
func (f *Frame) AllocatedStack() int { return f.NumSlots() * SlotSize }

// NumSlots returns the number of allocated slots: slot spi exists for
// 0 <= spi < NumSlots().
func (f *Frame) NumSlots() int {
	if f.packed {
		return int(f.nslots)
	}
	return len(f.stack)
}

// HeldSlots returns the number of slots f keeps in memory: every allocated
// slot of a working frame, the written ones of a packed frame.
func (f *Frame) HeldSlots() int { return len(f.stack) }

// HeldStack returns the slots f keeps in memory: every allocated slot of
// a working frame, indexed by spi, or the written ones of a packed frame,
// in index order (the others are never-written). It serves walks that
// visit every written slot whatever its index, such as the search for the
// spilled copies of a pointer; what they write through it follows Slot's
// rules. The slice must not be grown or kept.
func (f *Frame) HeldStack() []Slot { return f.stack }

// Slot returns slot spi, which must be allocated (spi < NumSlots()). The
// slot may be written, except that a packed frame has no storage for its
// never-written slots: for those it returns a shared never-written slot,
// which callers only read. Nothing writes a held state's stack but
// cleaning, which only resets written slots, precision marks, which only
// go to spilled registers, and the refinements of a branch just pushed,
// which only go to spilled registers and objects on the stack.
func (f *Frame) Slot(spi int) *Slot {
	if !f.packed {
		return &f.stack[spi]
	}
	return f.packedSlot(spi)
}

// packedSlot is Slot for a packed frame.
func (f *Frame) packedSlot(spi int) *Slot {
	if f.present&(uint64(1)<<spi) == 0 {
		return &absentSlot
	}
	return &f.stack[f.storeIndex(spi)]
}

// absentSlot is what a packed frame's unstored slots read as: every byte
// StackInvalid, the spilled register NotInit.
var absentSlot Slot

// AbsentSlotIntact reports whether the shared slot packed frames return
// for their never-written slots is still never-written: a write through
// Slot to such a slot would change every checkpoint's stack at once. The
// verifier checks it after each program.
func AbsentSlotIntact() bool { return absentSlot == Slot{} }

// storeIndex returns the index in f.stack of slot spi, which f holds.
func (f *Frame) storeIndex(spi int) int {
	if !f.packed {
		return spi
	}
	return bits.OnesCount64(f.present & (uint64(1)<<spi - 1))
}

// unpack gives a packed frame the dense layout again, stack and
// registers, for the rare operations that change a stored frame's
// allocation.
func (f *Frame) unpack() {
	if !f.packed {
		return
	}
	dense := make([]Slot, f.nslots)
	scatter(dense, f.stack, f.present)
	regs := new([NumRegs]Reg)
	f.unpackRegsTo(regs)
	f.stack, f.present, f.nslots, f.packed = dense, 0, 0, false
	f.dense, f.pregs, f.regPresent = regs, f.pregs[:0], 0
	f.sum.reset()
}

// GrowStack makes the allocated stack cover at least bytes bytes below the
// frame pointer, rounded up to whole slots (the kernel's grow_stack_state).
// New slots are StackInvalid with a zero spilled register. It never shrinks
// the stack, and it stops at MaxStack: a larger request is the caller's
// error to report, not a reason to allocate.
func (f *Frame) GrowStack(bytes int) {
	if bytes > MaxStack {
		bytes = MaxStack
	}
	n := (bytes + SlotSize - 1) / SlotSize
	if n <= f.NumSlots() {
		return
	}
	f.unpack()
	old := len(f.stack)
	if n <= cap(f.stack) {
		f.stack = f.stack[:n]
		clear(f.stack[old:])
		return
	}
	grown := make([]Slot, n, max(n, min(2*cap(f.stack), maxSlots)))
	copy(grown, f.stack)
	f.stack = grown
}

// SlotAt returns the slot holding the byte at fp+off and the byte's index in
// the slot's Types. It returns nil, -1 when off is not below the frame
// pointer or the slot is not allocated.
func (f *Frame) SlotAt(off int) (*Slot, int) {
	if off >= 0 {
		return nil, -1
	}
	spi := (-off - 1) / SlotSize
	if spi >= f.NumSlots() {
		return nil, -1
	}
	return f.Slot(spi), off + SlotSize*(spi+1)
}

// SlotIndex returns the slot index (spi) of the byte at fp+off, for off < 0.
func SlotIndex(off int) int { return (-off - 1) / SlotSize }

// SlotOffset returns the frame-pointer offset of the lowest byte of slot spi
// (-8 for spi 0), the offset the log prints as "fp-8".
func SlotOffset(spi int) int { return -SlotSize * (spi + 1) }

// IsSpilledReg reports whether the slot holds a spilled register, of any
// width (the kernel's is_spilled_reg).
func (s *Slot) IsSpilledReg() bool { return s.Types[lastByte] == StackSpill }

// IsSpilledScalarReg reports whether the slot holds a spilled scalar of any
// width (is_spilled_scalar_reg).
func (s *Slot) IsSpilledScalarReg() bool {
	return s.IsSpilledReg() && s.Spilled.Type == ScalarValue
}

// IsSpilledScalarReg64 reports whether the slot holds a scalar spilled with
// a full 8-byte store (is_spilled_scalar_reg64).
func (s *Slot) IsSpilledScalarReg64() bool {
	return s.Types[0] == StackSpill && s.Spilled.Type == ScalarValue
}

// IsAllMisc reports whether every byte of the slot is StackMisc, also
// counting StackInvalid when uninitialised stack reads are allowed
// (is_stack_all_misc). A load from such a slot yields an unknown scalar.
func (s *Slot) IsAllMisc(allowUninit bool) bool {
	w := slotWord(s)
	if allowUninit {
		// Every byte MISC (2) or INVALID (0): no bit but bit 1 of
		// each byte is set.
		return w&^everyByteMisc == 0
	}
	return w == everyByteMisc
}

// IsPlain reports whether every byte of the slot is StackInvalid, StackMisc
// or StackZero: data, neither a spilled register nor an object.
func (s *Slot) IsPlain() bool { return isPlain(s) }

// MarkMisc makes every byte of the slot StackMisc, unknown data, leaving
// the spilled register as it is.
func (s *Slot) MarkMisc() {
	for i := range s.Types {
		s.Types[i] = StackMisc
	}
}

// Invalidate resets the slot to never-written: every byte StackInvalid and
// the spilled register NotInit.
func (s *Slot) Invalidate() {
	s.Types = [SlotSize]SlotType{}
	s.Spilled.MarkNotInit()
}

// IsValid reports whether any byte of the slot has been written.
func (s *Slot) IsValid() bool { return s.Types != [SlotSize]SlotType{} }

// sealedSpills returns the slots of a sealed frame whose last byte is
// StackSpill, from its summary words.
func (f *Frame) sealedSpills() uint64 {
	held := ^uint64(0)
	if n := f.NumSlots(); n < maxSlots {
		held = 1<<n - 1
	}
	if f.packed {
		held = f.present
	}
	// words[k] is the k-th held slot's: p's lowest bit names its slot.
	var spills uint64
	p := held
	for _, w := range f.sum.words {
		if SlotType(w>>(8*lastByte)) == StackSpill {
			spills |= p & -p
		}
		p &= p - 1
	}
	return spills
}

// PreciseScalars returns the registers r0..r9 of f that hold precise
// scalars (bit i for ri) and the slots holding a spilled precise scalar
// (the last byte a spill: bit spi for slot spi), what propagate_precision
// carries from the checkpoint that pruned a path. It visits only what f
// holds, in order, and of a sealed frame only the registers that are not
// loose and the slots its summary says hold a spill that is not loose: at
// a pruning hit the checkpoint is cold, and a lookup per slot (Slot) read
// every one of them.
func (f *Frame) PreciseScalars() (regs uint16, slots uint64) {
	mask, rs := f.heldRegs()
	k := 0
	for m := mask &^ (1 << RegFP); m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		if r := &rs[k]; f.sum.looseRegs&(1<<i) == 0 && r.Type == ScalarValue && r.Precise() {
			regs |= 1 << i
		}
		k++
	}
	if f.sum.valid {
		// The summary names the slots holding a spill, found in its
		// words at the first call (a checkpoint that prunes once
		// prunes again: loops): only those that are not loose
		// (imprecise) are read.
		if !f.sum.spillsKnown {
			f.sum.spills = f.sealedSpills()
			f.sum.spillsKnown = true
		}
		for p := f.sum.spills &^ f.sum.looseSlots; p != 0; p &= p - 1 {
			spi := bits.TrailingZeros64(p)
			if s := &f.stack[f.storeIndex(spi)]; s.Spilled.Type == ScalarValue && s.Spilled.Precise() {
				slots |= 1 << spi
			}
		}
		return regs, slots
	}
	held := ^uint64(0)
	if n := f.NumSlots(); n < maxSlots {
		held = 1<<n - 1
	}
	if f.packed {
		held = f.present
	}
	k = 0
	for p := held; p != 0; p &= p - 1 {
		spi := bits.TrailingZeros64(p)
		bit := uint64(1) << spi
		if s := &f.stack[k]; s.IsSpilledScalarReg() && s.Spilled.Precise() {
			slots |= bit
		}
		k++
	}
	return regs, slots
}
