package states

// Register constructors and predicates.
//
// A Reg is either NotInit (never written, or dead), a ScalarValue (its
// Scalar is the value), or a pointer (its Scalar is the variable part of the
// offset, Off the fixed part). The constructors below reset every field the
// kernel resets, so that two registers built the same way compare equal
// field by field: the Exact comparison of StatesEqual is a field compare.

// AddConst64ID is the flag bit of a scalar's ID (the kernel's
// BPF_ADD_CONST64) meaning "this register equals the register with ID
// &^ AddConstID, plus the constant in Off, computed by a 64-bit add or
// subtract". Such links let a bounds check on one register narrow the other.
const AddConst64ID uint32 = 1 << 31

// AddConst32ID is the flag bit of a scalar's ID (BPF_ADD_CONST32) for a link
// made by a 32-bit add or subtract: the register is the low 32 bits of the
// base plus Off, zero-extended.
const AddConst32ID uint32 = 1 << 30

// AddConstID is the mask of both add-const flag bits (BPF_ADD_CONST): an ID
// with either bit set carries a delta in Off.
const AddConstID = AddConst64ID | AddConst32ID

// RegFP is the read-only frame pointer register, r10.
const RegFP = 10

// allRegsLive is the liveness mask with r0..r10 set, used when no liveness
// information is supplied.
const allRegsLive uint16 = 1<<NumRegs - 1

// MarkUnknown makes r a scalar about which nothing is known, with no id and
// no pointer fields (the kernel's __mark_reg_unknown). precise is the
// initial precision: the kernel starts scalars precise only for unprivileged
// loaders, so a privileged verifier passes false.
func (r *Reg) MarkUnknown(precise bool) {
	*r = unknownReg
	r.SetPrecise(precise)
}

// unknownReg and notInitReg are the values MarkUnknown and MarkNotInit
// store, built once: every helper call resets six registers, and building
// the 88-byte value (zeroing it, then writing the unknown scalar into it)
// at each reset cost twice its copy. scalarReg is the zero scalar MarkConst
// copies before writing the constant in place: building the constant
// register in a temporary and copying it cost twice as much (its 16-byte
// loads wait on the temporary's 8-byte stores), 2% of a corpus pass.
var (
	unknownReg = Reg{Scalar: unknownScalar, Type: ScalarValue}
	notInitReg = Reg{Scalar: unknownScalar}
	scalarReg  = Reg{Type: ScalarValue}
)

// MarkConst makes r an imprecise scalar known to hold v, with no id (what
// the kernel produces for "r = imm": __mark_reg_unknown then
// __mark_reg_known). It writes the constant into r in place (see
// scalarReg).
func (r *Reg) MarkConst(v uint64) {
	*r = scalarReg
	r.Scalar.SetConst(v)
}

// MarkConstZero makes r an imprecise scalar known to be zero, keeping its
// frame number: the kernel's __mark_reg_const_zero, with which a read of
// zeroed stack fills a register, does not reset the register first as a
// move of an immediate does, so the frame of a stack pointer the register
// held before stays with the scalar (and decides where "scalar += r10"
// points, see adjust_ptr_min_max_vals).
func (r *Reg) MarkConstZero() {
	frame := r.FrameNo()
	r.MarkConst(0)
	r.SetFrameNo(frame)
}

// MarkKnown sets the variable part of r to the constant v and clears the
// fixed offset, the type-specific fields (Range, Aux, Buf) and both ids, keeping
// Type, Flags, FrameNo and Precise (the kernel's __mark_reg_known). On a
// pointer it means "points exactly at the object's base plus v".
func (r *Reg) MarkKnown(v uint64) {
	r.Scalar.SetConst(v)
	r.Off, r.Range, r.Aux, r.Buf = 0, 0, 0, StackBuf{}
	r.ID, r.RefObjID = 0, 0
}

// MarkNotInit makes r an uninitialised register (the kernel's
// __mark_reg_not_init). Its bounds are left unknown, as in the kernel, so
// that every NotInit register compares equal to every other one.
func (r *Reg) MarkNotInit() {
	*r = notInitReg
}

// MarkNull makes a maybe-NULL pointer found NULL the scalar 0, as the
// kernel's mark_ptr_or_null_reg does: type and ids go, but the fixed
// offset, the type-specific union (Range, Aux, Buf), the frame and the
// precision mark stay. Nothing reads them on a scalar but the byte-wise
// comparisons of states_maybe_looping and regs_exact, which tell such a
// NULL from a 0 of another origin.
//
// The kernel's union holds a map pointer for a lookup's value or inner
// map, never zero, where Aux holds the map's index, which is 0 for the
// object's first map: such a NULL keeps its index marked with
// nullOfMapMark, so that it differs from a 0 of another origin as the
// kernel's bytes do (a NULL of the first map's lookup did equal a helper's
// 0, and vercheck called a loop infinite one turn before the kernel).
func (r *Reg) MarkNull() {
	if r.Type == PtrToMapValue || r.Type == ConstPtrToMap {
		r.Aux |= nullOfMapMark
	}
	r.Scalar = Scalar{} // the constant 0, zeroed in place
	r.Type, r.Flags = ScalarValue, 0
	r.ID, r.RefObjID = 0, 0
}

// nullOfMapMark marks the Aux of a NULL found in a lookup's result: the
// map index stays below it (see MarkNull).
const nullOfMapMark = 1 << 31

// MarkPtr makes r a pointer of kind t with flags, pointing at the object's
// base: zero fixed offset, a known-zero variable offset, no ids, no Aux,
// Range or FrameNo. Callers set those afterwards (for example Aux to the map
// index, FrameNo for a stack pointer).
func (r *Reg) MarkPtr(t RegType, flags RegFlags) {
	// The zero Reg's variable offset is the constant 0; zeroed in place,
	// where a literal with fields is built in a temporary and copied.
	*r = Reg{}
	r.Type, r.Flags = t, flags
}

// MarkFramePointer makes r the frame pointer of frame frameNo: a stack
// pointer at offset 0 ("fp0").
func (r *Reg) MarkFramePointer(frameNo int32) {
	r.MarkPtr(PtrToStack, 0)
	r.SetFrameNo(int(frameNo))
}

// IsPointer reports whether r holds a pointer of any kind.
func (r Reg) IsPointer() bool { return r.Type != NotInit && r.Type != ScalarValue }

// IsScalar reports whether r holds a scalar.
func (r Reg) IsScalar() bool { return r.Type == ScalarValue }

// IsNull reports whether r is the scalar constant 0 (the kernel's
// register_is_null).
func (r Reg) IsNull() bool {
	return r.Type == ScalarValue && r.Var.IsConst() && r.Var.Value == 0
}

// IsConst reports whether r is a scalar with a single known value.
func (r Reg) IsConst() bool { return r.Type == ScalarValue && r.Var.IsConst() }

// IsPktPointer reports whether r points into packet data (PtrToPacket or
// PtrToPacketMeta), the kinds that carry a checked Range.
func (r Reg) IsPktPointer() bool {
	return r.Type == PtrToPacket || r.Type == PtrToPacketMeta
}

// MaybeNull reports whether r is a pointer that may still be NULL.
func (r Reg) MaybeNull() bool { return r.Flags&MaybeNull != 0 }

// sameValue reports whether a and b agree on every field the kernel's
// regs_exact compares byte-wise: type with flags, fixed offset, the
// type-specific union (Range, Aux, Buf) and the variable part with its
// bounds. Ids, FrameNo and Precise are not part of it.
func sameValue(a, b *Reg) bool {
	return a.Type == b.Type && a.Flags == b.Flags && a.sameObject(b) &&
		a.Scalar.Equal(&b.Scalar)
}

// MapUID is, for a map pointer (ConstPtrToMap) or a pointer into a map's
// key or value, the kernel's map_uid: which inner map of a map of maps the
// pointer belongs to. A lookup in a map of maps yields the inner map
// template (one per outer map, the same Aux for every element), and once
// proven non-NULL the inner map takes the lookup's id as its uid when its
// values hold a timer, a workqueue or a task_work, so that a timer of one
// inner map is not started with another (0 for every other map). Lookups
// in the inner map pass the uid on to their values. It lives in Range, as
// the kernel keeps it in the register's union next to map_ptr, and so
// takes part in every comparison of Range (pruning compares it exactly).
func (r *Reg) MapUID() uint32 {
	switch r.Type {
	case ConstPtrToMap, PtrToMapKey, PtrToMapValue:
		return uint32(r.Range)
	}
	return 0
}

// SetMapUID sets the map uid of a map pointer or a pointer into a map's
// key or value (see MapUID).
func (r *Reg) SetMapUID(uid uint32) {
	r.Range = int32(uid)
}

// sameObject reports whether a and b agree on the fixed offset and the
// type-specific union the kernel's regsafe compares byte-wise for pointers
// into memory (memcmp up to var_off): Range, Aux and Buf.
func (a *Reg) sameObject(b *Reg) bool {
	return a.Off == b.Off && a.Range == b.Range && a.Aux == b.Aux && a.Buf == b.Buf
}
