package states

// Tnum is a tristate number: each bit is known 0, known 1, or unknown.
// A bit is unknown when it is set in Mask; known bits are in Value, and
// Value&Mask is always 0.
type Tnum struct {
	Value, Mask uint64
}

// Scalar is the numeric part of a register: a tnum plus signed and unsigned
// bounds on the full 64-bit value and on its low 32-bit subregister. The
// eight bounds and the tnum are kept consistent with each other (see Sync).
// For a pointer it describes the variable part of the offset.
type Scalar struct {
	Var            Tnum
	SMin, SMax     int64
	UMin, UMax     uint64
	S32Min, S32Max int32
	U32Min, U32Max uint32
}

// RegType is the kind of value a register holds (the kernel's base
// bpf_reg_type, without flags).
type RegType uint8

// Register kinds.
const (
	NotInit RegType = iota
	ScalarValue
	PtrToCtx
	ConstPtrToMap
	PtrToMapValue
	PtrToMapKey
	PtrToStack
	PtrToPacketMeta
	PtrToPacket
	PtrToPacketEnd
	PtrToFlowKeys
	PtrToSocket
	PtrToSockCommon
	PtrToTCPSock
	PtrToTPBuffer
	PtrToXDPSock
	PtrToBTFID
	PtrToMem
	PtrToBuf
	PtrToFunc
	PtrToArena
	// ConstPtrToDynptr points to a dynptr the program may read but not
	// change or release (a callback's dynptr argument).
	ConstPtrToDynptr
	numRegTypes
)

// RegFlags are the kernel's type flags that refine a RegType.
type RegFlags uint16

// Register type flags. Two registers of the same RegType but different
// flags are different types for equivalence.
const (
	MaybeNull RegFlags = 1 << iota
	MemRdonly
	MemRingbuf
	MemUser
	MemPercpu
	MemRCU
	PtrUntrusted
	PtrTrusted
	MemAlloc
	MemUninit
	// NonOwnRef marks a non-owning reference to an allocated object that
	// a graph (list, rbtree) owns: valid only while the lock protecting
	// the graph is held (the kernel's NON_OWN_REF).
	NonOwnRef
	// OuterMapValue marks an unchecked lookup in a map of maps that the
	// kernel still types as a value of the outer map until the NULL
	// check turns it into the inner map (6.18.0: map_value_or_null of
	// the outer map in the log and in messages). Builds with
	// stablefix.LookupTypedAtCall type it as the inner map pointer from
	// the lookup on (map_ptr_or_null), and vercheck leaves it unset. It
	// changes how the register prints, never what it may do.
	OuterMapValue
)

// Reg is the abstract state of one register (or of a spilled register in a
// stack slot). It is a plain value, copied by assignment.
type Reg struct {
	// Scalar is the value of a scalar register, or the variable offset of
	// a pointer.
	Scalar
	// Off is the fixed offset of a pointer from its base.
	Off int32
	// Range is, for packet pointers, the number of bytes past the pointer
	// known to be inside the packet; for PtrToMem/PtrToBuf the size of the
	// memory region; for map pointers and pointers into a map's key or
	// value the map's uid (see MapUID).
	Range int32
	// ID groups registers that share facts: maybe-null pointers from one
	// lookup, packet pointers derived from one another, linked scalars.
	ID uint32
	// RefObjID is the id of the acquired reference this register holds.
	RefObjID uint32
	// Aux identifies the object behind a pointer: the map index for
	// ConstPtrToMap and PtrToMapValue/PtrToMapKey, the BTF type id for
	// PtrToBTFID, the subprogram index for PtrToFunc.
	Aux uint32
	// Buf is, for a dynptr slice (PtrToMem) taken with a stack buffer,
	// the stack bytes the buffer may occupy: the slice may point there,
	// and a write to them ends it (stablefix.SliceBufferInvalidate).
	Buf StackBuf
	// Type is the register kind and Flags its refinements.
	Type RegType
	// frameMark packs two small fields into one byte, so that the fields
	// after Buf fit in the padding of a Reg (every branch and checkpoint
	// copies a dozen per frame and one per stack slot): the call frame a
	// PtrToStack points into (FrameNo, below MaxCallFrames) in the low
	// bits, and the precision mark (Precise) in preciseBit.
	frameMark uint8
	Flags     RegFlags
}

// StackBuf is the stack buffer a bpf_dynptr_slice(_rdwr) was given: the
// kfunc copies the data there when it cannot point into the dynptr's
// memory directly, so the slice may point into the stack. The kernel
// prints it "buf=fp[Frame]Off+Size". The zero StackBuf is no buffer.
type StackBuf struct {
	// Off is the lowest stack offset the buffer may start at (negative;
	// the smallest of a variable offset).
	Off int16
	// Size is the number of bytes from Off the buffer may cover: its
	// size, plus the spread of a variable offset.
	Size uint16
	// Frame is the call frame whose stack holds the buffer.
	Frame uint8
}

// Overlaps reports whether b lies in frame and shares a byte with the
// stack offsets [lo, hi).
func (b StackBuf) Overlaps(frame, lo, hi int) bool {
	return b.Size != 0 && int(b.Frame) == frame && lo < int(b.Off)+int(b.Size) && int(b.Off) < hi
}

// preciseBit is the bit of Reg.frameMark holding the precision mark; the
// bits below it hold the frame number.
const preciseBit uint8 = 1 << 7

// FrameNo is the call frame a PtrToStack points into (the kernel's
// bpf_reg_state.frameno).
func (r *Reg) FrameNo() int { return int(r.frameMark &^ preciseBit) }

// SetFrameNo sets the call frame a PtrToStack points into; frameNo is
// below MaxCallFrames.
func (r *Reg) SetFrameNo(frameNo int) {
	r.frameMark = r.frameMark&preciseBit | uint8(frameNo)
}

// Precise reports the precision mark: a scalar whose exact range mattered
// to safety on some path below the checkpoint holding it.
func (r *Reg) Precise() bool { return r.frameMark&preciseBit != 0 }

// SetPrecise sets or clears the precision mark.
func (r *Reg) SetPrecise(precise bool) {
	if precise {
		r.frameMark |= preciseBit
	} else {
		r.frameMark &^= preciseBit
	}
}

// SlotType is the kind of one byte of the stack.
type SlotType uint8

// Stack byte kinds.
const (
	StackInvalid SlotType = iota // never written
	StackSpill                   // part of a spilled register (Slot.Spilled)
	StackMisc                    // unknown data
	StackZero                    // known zero
	StackDynptr
	StackIter
	StackIRQFlag
)

// SlotSize is the size in bytes of one stack slot (one register).
const SlotSize = 8

// MaxStack is the size of one frame's stack in bytes.
const MaxStack = 512

// Slot is one 8-byte stack slot. Types[i] describes the byte at address
// fp - 8*(spi+1) + i, where spi is the slot's index in Frame.Stack.
type Slot struct {
	Spilled Reg
	Types   [SlotSize]SlotType
}

// NumRegs is the number of BPF registers, r0..r10.
const NumRegs = 11

// MaxCallFrames is the deepest bpf-to-bpf call chain.
const MaxCallFrames = 8

// Frame is the state of one call frame.
//
// A working frame's registers live in an array allocated with it
// (Pool.Frame, Frame.Regs), a packed frame's in a slice as long as the
// registers it holds (Frame.Reg): a held state keeps a kilobyte less per
// frame than the eleven registers would take.
//
// The fields are laid out for comparisons against stored checkpoints,
// which read a frame cold: the first 64 bytes hold what locating a packed
// frame's slots and registers needs, the next 64 the summary (stackSummary,
// 64 bytes), and the rest what a comparison reads last or not at all. The
// frame is 192 bytes, a size class whose objects start on a cache line, so
// that these are two lines where the 168-byte order of before spread them
// over three; TestSizeof guards it.
type Frame struct {
	// stack holds the allocated slots. A working frame is dense:
	// stack[spi] covers bytes [fp-8*(spi+1), fp-8*spi) and its length is
	// the allocated stack / 8. A packed frame (a stored checkpoint, see
	// Pool.ClonePacked) holds only the slots named in present, in
	// index order; read either through Slot and NumSlots.
	stack []Slot
	// pregs holds a packed frame's registers named in regPresent, in
	// index order; every other register is the canonical NotInit one
	// (see Frame.Reg).
	pregs []Reg
	// present names, for a packed frame, the slots stack holds (bit spi
	// for slot spi); every other slot below nslots is StackInvalid.
	present uint64
	// nslots is a packed frame's number of allocated slots.
	nslots int32
	// regPresent names, for a packed frame, the registers pregs holds
	// (bit i for ri).
	regPresent uint16
	// packed tells which of the two layouts stack and the registers
	// have.
	packed bool
	// sum caches, for a sealed checkpoint, which registers regsSafe and
	// which slots stackSafe can skip (see State.Seal).
	sum stackSummary
	// dense holds a working frame's registers, r0..r10; a packed frame
	// has none (nil) and keeps its registers in pregs.
	dense *[NumRegs]Reg

	// CallSite is the instruction index of the call that created this
	// frame, or -1 for the main program.
	CallSite int32
	// FrameNo is the frame's depth (0 for the main program).
	FrameNo int32
	// SubProg is the index of the subprogram this frame executes.
	SubProg int32
	// CallbackDepth counts how many times a callback has been re-entered.
	CallbackDepth int32
	// InCallbackFn and InAsyncCallbackFn mark callback frames.
	InCallbackFn      bool
	InAsyncCallbackFn bool
	// CallbackRetMin/Max is the range a callback's return must lie in.
	CallbackRetMin, CallbackRetMax int32
	// AsyncEntryCnt counts the asynchronous callbacks (timer callbacks)
	// between the main program and this frame: zero for the main
	// program, one more at each bpf_timer_set_callback. It tells a loop
	// from a callback that registers itself again.
	AsyncEntryCnt int32
	// _ makes the frame 192 bytes, the size class that keeps frames
	// aligned on cache lines (see above).
	_ [8]byte
}

// stackSummary describes a sealed frame's stack compactly, so that a
// comparison reads one word per slot instead of a cold 96-byte slot:
// words[k] is slotWord of the slot stored at stack[k] (slot k of a dense
// frame, the k-th present slot of a packed one); bit spi of invalid is set
// when every byte of slot spi is StackInvalid, of misc when every byte is
// StackInvalid or StackMisc, of plain when every byte is INVALID, MISC or ZERO
// (isPlain), of spills when the slot's last byte is StackSpill (it holds a
// spilled register, IsSpilledReg; computed from words by the first
// PreciseScalars, which sets spillsKnown). It is only meaningful when valid is set, which only
// State.Seal and State.Clean do; every copy and reset clears it, keeping
// the capacity of words for the next seal.
//
// inited has bit i set when register i is not NotInit; it is meaningful when
// regsValid is set, which seal does whatever the stack's size (valid
// covers only the stack part, which is left out beyond 64 slots). A
// NotInit register of a checkpoint subsumes anything in a NotExact
// comparison, so regsSafe skips those registers without reading them: a
// cleaned checkpoint has many.
//
// looseRegs has bit i set when register i is a loose scalar (isLoose: no
// precision mark, no flags), looseSlots bit spi when slot spi holds one
// spilled whole (every byte StackSpill). In a NotExact comparison such an
// old register or slot subsumes exactly what cur reads as a scalar without
// flags (regsafe answers at its precision test), so the comparison does not
// read the cold register at all: most spilled registers of the corpus's
// checkpoints are such scalars. A bit is only ever cleared after seal:
// marking the register precise (Frame.SetRegPrecise, Frame.SetSlotPrecise,
// MarkAllScalarsPrecise) or cleaning it clears it, and nothing else writes
// a stored state's registers.
type stackSummary struct {
	words                []uint64
	invalid, misc, plain uint64
	looseSlots           uint64
	spills               uint64
	inited, looseRegs    uint16
	regsValid            bool
	valid                bool
	spillsKnown          bool
	// hint is one more than the slot where the last NotExact or
	// RangeWithin comparison against this frame failed (0: none): the
	// next comparison tests it first (hintFails).
	hint uint8
	// regHint is one more than the register where the last NotExact or
	// RangeWithin comparison against this frame failed (0: none), tested
	// first the same way (regHintFails).
	regHint uint8
	// loopHint is one more than the register where the last
	// MaybeLooping test against this frame found a difference (0: none).
	loopHint uint8
}

// reset empties the summary, keeping the memory of words.
func (m *stackSummary) reset() {
	words := m.words[:0]
	*m = stackSummary{} // zeroed in place, where a literal with words is copied
	m.words = words
}

// Ref is an acquired reference (socket, ringbuf record, lock...).
type Ref struct {
	ID          uint32
	InsnIdx     int32 // where it was acquired
	Kind        uint8
	CallbackRef int32
	// Ptr identifies the object a lock reference lives in (for a map
	// value lock, the map's index plus one); zero for pointer references.
	Ptr uint32
}

// Reference kinds (Ref.Kind), the kernel's REF_TYPE_*.
const (
	// RefKindPtr is an acquired pointer (socket, ringbuf record...): it
	// must be released before the program exits.
	RefKindPtr uint8 = iota
	// RefKindLock is a held bpf_spin_lock: it must be unlocked before the
	// program exits, and no other function may be called meanwhile.
	RefKindLock
	// RefKindIRQ is an interrupt-disabled section opened by
	// bpf_local_irq_save or bpf_res_spin_lock_irqsave, whose saved flags
	// live in a StackIRQFlag slot; sections close in the reverse order.
	RefKindIRQ
	// RefKindResLock and RefKindResLockIRQ are a held resilient spin
	// lock, taken by bpf_res_spin_lock or bpf_res_spin_lock_irqsave.
	RefKindResLock
	RefKindResLockIRQ
)

// IsLockRef reports whether a reference of kind k is a held lock of any kind
// (the kernel's REF_TYPE_LOCK_MASK).
func IsLockRef(k uint8) bool {
	return k == RefKindLock || k == RefKindResLock || k == RefKindResLockIRQ
}

// JmpHistEntry records one step of the path since the last checkpoint that
// precision backtracking needs to walk back over: a jump (from PrevIdx to
// Idx) or a stack access.
type JmpHistEntry struct {
	Idx, PrevIdx int32
	Flags        uint32
	LinkedRegs   uint64
}

// State is a whole verifier state: the call frames plus everything the
// kernel keeps per path.
//
// Its fields are ordered for the pruning walk, which reads a stored state
// cold, once per checkpoint of a bucket: what the walk and StatesEqual
// read first (Branches, CurFrame, the lock and reference counts, the
// speculative and sleepable marks, Refs and the first frame) comes in the
// first 64 bytes, and the struct is 192 bytes, a size class whose objects
// start on a cache line, so that they share one line (the old order spread
// them over three).
type State struct {
	CurFrame int32
	// Branches counts paths below this state that are still open.
	Branches    int32
	ActiveLocks int32
	// ActivePreemptLocks counts nested preemption-disabled sections.
	ActivePreemptLocks int32
	// ActiveIRQID is the reference id of the innermost open
	// interrupt-disabled section (RefKindIRQ), 0 when none is open: only
	// that section may be closed next.
	ActiveIRQID uint32
	// ActiveLockID and ActiveLockPtr name the most recently taken lock:
	// the id of the map value it was taken through and its Ref.Ptr.
	ActiveLockID  uint32
	ActiveLockPtr uint32
	ActiveRCU     bool
	Speculative   bool
	InSleepable   bool
	// Cleaned marks a checkpoint whose dead registers and slots were reset.
	Cleaned bool
	Refs    []Ref
	Frames  [MaxCallFrames]*Frame
	// Parent is the checkpoint this state descends from.
	Parent *State
	// StoreEntry is, while an explored-state store holds this state as a
	// checkpoint, the index of its entry plus one; 0 otherwise. Only the
	// store writes it (the kernel finds the list node around a state with
	// container_of; a field spares a map lookup per checkpoint). A copy
	// of a stored state is not stored.
	StoreEntry   int32
	InsnIdx      int32
	FirstInsnIdx int32
	LastInsnIdx  int32
	// Freed marks a checkpoint the kernel has freed (evicted, its paths
	// done) while a loop back-edge state kept for later precision
	// propagation may still name it as an ancestor: the kernel keeps no
	// count of those references (free_verifier_state), so a later walk
	// up that chain reads freed memory. The store keeps such a state out
	// of the pool so that the walk can tell.
	Freed bool
	// SCCVisit is, for a checkpoint, which of the verifier's loop visits
	// it belongs to: the visit's index plus one for a checkpoint inside a
	// loop (an SCC of the control-flow graph), -1 for one outside every
	// loop, 0 when not recorded (a copy, or more visits than an int16
	// counts; the verifier then looks the call chain up). The verifier
	// sets it when it stores the checkpoint, so that asking whether the
	// loop still has back-edges to propagate, asked for every checkpoint
	// a prune point compares, does not hash the call chain. An int16 fits
	// in Freed's padding: an int32 took State from 184 to 192 bytes.
	SCCVisit            int16
	DFSDepth            int32
	CallbackUnrollDepth int32
	MayGotoDepth        int32
	JmpHistory          []JmpHistEntry
}
