package states

import "math/bits"

// State equivalence: when does a stored checkpoint make exploring the
// current state unnecessary?
//
// The order. States are ordered by "knows less than": old ⊒ cur when every
// concrete machine state cur describes is also described by old, as far as
// anything that can still be read is concerned. A checkpoint old was proven
// safe on every path below it, so if old ⊒ cur, cur is safe too and its path
// is pruned. StatesEqual decides old ⊒ cur (the kernel's states_equal);
// despite the kernel's name it is not symmetric.
//
// Per register (RegSafe, the kernel's regsafe):
//   - NotInit in old is ⊒ anything: old never read it.
//   - Types must match exactly, flags included: a pointer never subsumes a
//     scalar, a map_value never subsumes a map_value_or_null (the null
//     check of the latter would also have narrowed its id group).
//   - An imprecise old scalar is ⊒ any scalar: its value never mattered to
//     safety below old.
//   - Otherwise ranges nest (all eight bounds of cur inside old's), tnums
//     nest (cur's known bits agree with old's, cur knows at least as much),
//     and the fixed parts (offset, map, range of checked packet bytes) are
//     equal, or for packet ranges cur has at least old's.
//   - Ids must correspond one to one: registers sharing an id in old
//     (linked scalars, one lookup's maybe-null pointers, one reference)
//     must share one in cur. The correspondence is built while comparing,
//     old id → cur id, in EqualEnv's scratch map.
//
// Per stack byte (stacksafe): an old INVALID byte (and, for a privileged
// loader, an old MISC byte) was never relied on; an old MISC byte is ⊒ cur
// ZERO; a spilled 64-bit scalar and an all-MISC slot compare as scalars
// (MISC reads as an unknown scalar); other kinds must match, and spilled
// registers compare with RegSafe.
//
// Three strengths (ExactMode): NotExact is normal pruning; RangeWithin,
// used while a loop's marks are still incomplete, ignores precision and,
// on kernels without upstream 840692326e92 (EqualEnv.LoopUnreadSafe off),
// requires NotInit to match NotInit and every old stack byte to keep its
// type; Exact, used for infinite-loop detection, requires every register
// to be identical up to id renaming.
//
// Why 840692326e92 is sound: a register or stack byte the stored state
// never initialised cannot have been read on any path from it, complete or
// not. Either all its branches reached an exit (nothing read it), or one of
// them leads to the current state, whose own exploration will read or not
// read it on its own terms; precision marks are what may be incomplete, and
// RangeWithin still range-checks every scalar the old state holds.

// ExactMode is how strictly StatesEqual compares (the kernel's
// enum exact_level).
type ExactMode uint8

// Comparison strengths.
const (
	// NotExact is normal pruning against a completed checkpoint: it
	// honours precision marks and liveness.
	NotExact ExactMode = iota
	// Exact requires registers and stack to be identical up to id
	// renaming; used to detect an infinite loop.
	Exact
	// RangeWithin range-checks even imprecise scalars (and, without
	// LoopUnreadSafe, NotInit in old only matches NotInit in cur); used
	// where marks may be incomplete (loops, iterators, callbacks,
	// may_goto).
	RangeWithin
)

// idMapSize bounds the id correspondence, as in the kernel: every register
// and every stack slot of every frame could hold a distinct id.
const idMapSize = (NumRegs + MaxStack/SlotSize) * MaxCallFrames

// tmpIDBase is where the scratch map's temporary ids start. The kernel gives
// a scalar with id 0 a fresh id above every id handed out so far; keeping
// them in the upper half of a 64-bit space has the same effect (no real id
// can equal one) without tracking the verifier's id counter.
const tmpIDBase uint64 = 1 << 32

// idPair is one old id → cur id correspondence.
type idPair struct{ old, cur uint64 }

// EqualEnv holds the inputs of state comparison that live outside the
// states (liveness, privilege) and the reusable scratch id map. It is not
// safe for concurrent use. The zero value compares with every register
// and slot live, as a privileged loader.
type EqualEnv struct {
	// LiveRegs returns the registers live before insn, bit i for ri (the
	// kernel's live_regs_before). nil means all live.
	LiveRegs func(insn int) uint16
	// AliveSlots returns the stack slots of frame that may still be read
	// at or after insn, bit spi for slot spi (a frame has at most 64).
	// Only Clean uses it. nil means all alive.
	AliveSlots func(frame, insn int) uint64
	// Unprivileged selects the unprivileged rules: reading uninitialised
	// stack is forbidden, so old MISC bytes and INVALID bytes of an
	// otherwise MISC slot are no longer ignored.
	Unprivileged bool
	// PktMarksAsRanges compares the AT_PKT_END/BEYOND_PKT_END marks of
	// packet pointers as if they were byte counts, as kernels without the
	// stable fix "bpf: Fix regsafe() for pointers to packet" do
	// (stablefix.PktRegsafe): a stored mark then covers a current range
	// of 0, and the path is pruned.
	PktMarksAsRanges bool
	// LoopUnreadSafe makes RangeWithin treat what old never relied on
	// (NOT_INIT registers, INVALID and, where uninitialised reads are
	// allowed, MISC stack bytes) as NotExact does (stablefix.LoopUnreadSafe).
	LoopUnreadSafe bool

	ids   []idPair
	tmpID uint64
	// missState, missFrame and missSpi name the hinted slot the last
	// StatesEqual failed at (noteHintMiss), for UpdateQuickMiss.
	missState          *State
	missFrame, missSpi int8
}

// resetIDMap empties the id correspondence (reset_idmap_scratch). The
// map grows as ids are paired, up to idMapSize: most comparisons pair a
// few, and allocating all idMapSize pairs at once (9.6 KB) was a twentieth
// of the time of verifying a small program.
func (e *EqualEnv) resetIDMap() {
	e.ids = e.ids[:0]
	e.tmpID = tmpIDBase
}

// checkIDs records or checks the correspondence old → cur (check_ids):
// both ids are zero, or both are set and neither is already paired with
// another id.
func (e *EqualEnv) checkIDs(old, cur uint64) bool {
	if (old == 0) != (cur == 0) {
		return false
	}
	if old == 0 {
		return true
	}
	for _, p := range e.ids {
		if p.old == old {
			return p.cur == cur
		}
		if p.cur == cur {
			return false
		}
	}
	if len(e.ids) >= idMapSize {
		return false
	}
	e.ids = append(e.ids, idPair{old, cur})
	return true
}

// checkScalarIDs is checkIDs for scalar ids, where 0 means "linked to
// nothing". An old register linked to nothing relied on no link, so any
// cur id is fine and nothing is recorded (the 6.18 stable relaxation of
// check_scalar_ids: linking in cur only adds knowledge). A cur zero id
// becomes a fresh temporary id, so that two registers linked in old must
// stay linked in cur.
func (e *EqualEnv) checkScalarIDs(old, cur uint32) bool {
	if old == 0 {
		return true
	}
	o, c := uint64(old), uint64(cur)
	if c == 0 {
		e.tmpID++
		c = e.tmpID
	}
	if !e.checkIDs(o, c) {
		return false
	}
	// A linked register's base ids must map consistently too, or an old
	// "r3 = r2 + k" could match a current r3 derived from another base.
	if old&AddConstID != 0 {
		return e.checkIDs(o&^uint64(AddConstID), c&^uint64(AddConstID))
	}
	return true
}

// regsExact reports whether old and cur are identical up to id renaming
// (regs_exact).
func (e *EqualEnv) regsExact(old, cur *Reg) bool {
	return sameValue(old, cur) &&
		e.checkIDs(uint64(old.ID), uint64(cur.ID)) &&
		e.checkIDs(uint64(old.RefObjID), uint64(cur.RefObjID))
}

// RegSafe reports whether a path that was safe with old in a register is
// also safe with cur in it (the kernel's regsafe), with a fresh id
// correspondence.
func (e *EqualEnv) RegSafe(old, cur *Reg, mode ExactMode) bool {
	e.resetIDMap()
	return e.regSafe(old, cur, mode)
}

// regSafe is RegSafe within the id correspondence of the current
// comparison.
func (e *EqualEnv) regSafe(old, cur *Reg, mode ExactMode) bool {
	if mode == Exact {
		return e.regsExact(old, cur)
	}
	if old.Type == NotInit && (mode == NotExact || cur.Type == NotInit || e.LoopUnreadSafe) {
		return true
	}
	if old.Type != cur.Type || old.Flags != cur.Flags {
		return false
	}
	switch old.Type {
	case ScalarValue:
		if !old.Precise() && mode == NotExact {
			return true
		}
		// The add-const flags must match exactly (a 32-bit link
		// zero-extends, a 64-bit one does not); an old register without
		// an id accepts any.
		if old.ID != 0 && old.ID&AddConstID != cur.ID&AddConstID {
			return false
		}
		if old.ID&AddConstID != 0 && old.Off != cur.Off {
			return false
		}
		return old.RangeWithin(cur.Scalar) && old.Var.In(cur.Var) &&
			e.checkScalarIDs(old.ID, cur.ID)
	case PtrToMapKey, PtrToMapValue, PtrToMem, PtrToBuf, PtrToTPBuffer:
		// Same object and fixed offset; the variable part may narrow.
		return old.sameObject(cur) && old.RangeWithin(cur.Scalar) && old.Var.In(cur.Var) &&
			e.checkIDs(uint64(old.ID), uint64(cur.ID)) &&
			e.checkIDs(uint64(old.RefObjID), uint64(cur.RefObjID))
	case PtrToPacketMeta, PtrToPacket:
		// cur must have at least old's checked range, at the same fixed
		// offset (else alignment and range reasoning differ).
		if !e.pktRangeCovers(old.Range, cur.Range) || old.Off != cur.Off {
			return false
		}
		if !e.checkIDs(uint64(old.ID), uint64(cur.ID)) {
			return false
		}
		return old.RangeWithin(cur.Scalar) && old.Var.In(cur.Var)
	case PtrToStack:
		// fp-8 of one frame is not fp-8 of another.
		return e.regsExact(old, cur) && old.FrameNo() == cur.FrameNo()
	case PtrToArena:
		return true
	default:
		return e.regsExact(old, cur)
	}
}

// pktRangeCovers reports whether a packet pointer's checked range old is
// implied by cur's. Negative ranges are not byte counts but the
// AT_PKT_END/BEYOND_PKT_END marks of a comparison with pkt_end: they are
// ordered neither with each other nor with real ranges, so regsafe (since
// the stable fix "bpf: Fix regsafe() for pointers to packet") demands they
// be equal. Comparing them as numbers let a stored mark cover a current
// range 0, pruning a path on which the pointer was never checked; kernels
// without the fix still do (PktMarksAsRanges).
func (e *EqualEnv) pktRangeCovers(old, cur int32) bool {
	if (old < 0 || cur < 0) && !e.PktMarksAsRanges {
		return old == cur
	}
	return old <= cur
}

// scalarForStack returns the scalar a full 8-byte load from slot would
// produce, if it is one: the spilled 64-bit scalar, or an unknown scalar for
// an all-MISC slot (scalar_reg_for_stack). Otherwise nil.
func (e *EqualEnv) scalarForStack(s *Slot) *Reg {
	if s.IsSpilledScalarReg64() {
		return &s.Spilled
	}
	if s.IsAllMisc(!e.Unprivileged) {
		return &unboundScalar
	}
	return nil
}

// readsAsFlaglessScalar reports whether slot s reads as a scalar without
// flags: scalarForStack(s) is not nil and has no flags (a spilled 64-bit
// scalar without flags, or an all-MISC slot, which reads as
// unboundScalar), allowUninit being !e.Unprivileged. It is what an old
// loose spilled scalar asks of cur's slot in a NotExact comparison
// (looseSafe), on the packed kinds, small enough to be inlined in the
// comparison's loop.
func readsAsFlaglessScalar(s *Slot, allowUninit bool) bool {
	if s.Types[0] == StackSpill {
		// A 64-bit spill (its first byte a spill: what
		// IsSpilledScalarReg64 tests); such a slot is never all-MISC.
		return s.Spilled.Type == ScalarValue && s.Spilled.Flags == 0
	}
	return s.IsAllMisc(allowUninit)
}

// unboundScalar is the imprecise unknown scalar an all-MISC slot reads as.
// It is only ever read.
var unboundScalar = Reg{Scalar: UnknownScalar(), Type: ScalarValue}

// stackSafe reports whether old's stack subsumes cur's (stacksafe). Bytes
// of cur beyond old's allocation were never used by old and are ignored.
//
// The kernel walks old's stack byte by byte; this walks it slot by slot,
// skipping in one step the slots whose outcome is known without looking at
// bytes (identical plain slots, old slots nothing was read from), and
// falling back to the byte walk otherwise.
//
// done names slots of a sealed old frame already found safe during this
// comparison (hintFails): they are not compared again, as a second
// comparison of a slot would pair its ids a second time (a cur scalar
// without id gets a fresh temporary id each time) and fail.
func (e *EqualEnv) stackSafe(old, cur *Frame, mode ExactMode, done uint64) bool {
	allowUninit := !e.Unprivileged
	if mode == NotExact && old.sum.valid {
		return e.stackSafeSealed(old, cur, allowUninit, done)
	}
	if mode == RangeWithin && e.LoopUnreadSafe && old.sum.valid {
		// What old never relied on is skipped as in NotExact: the
		// summary names the slots to visit.
		for todo := old.sum.unread(old.NumSlots(), allowUninit) &^ done; todo != 0; todo &= todo - 1 {
			spi := bits.TrailingZeros64(todo)
			if !e.anySlotSafe(old, cur, spi, mode, allowUninit) {
				old.sum.noteHint(spi)
				return false
			}
		}
		return true
	}
	for spi := range old.NumSlots() {
		// Most slots of a cleaned checkpoint are never read: test that
		// first, on the packed word.
		if mode == NotExact && isUnread(old.Slot(spi), allowUninit) {
			continue
		}
		if !e.anySlotSafe(old, cur, spi, mode, allowUninit) {
			return false
		}
	}
	return true
}

// anySlotSafe is stackSafe's test of old's slot spi in any mode.
func (e *EqualEnv) anySlotSafe(old, cur *Frame, spi int, mode ExactMode, allowUninit bool) bool {
	os := old.Slot(spi)
	if spi < cur.NumSlots() {
		cs := cur.Slot(spi)
		w, cw := slotWord(os), slotWord(cs)
		if w == everyByteSpill && cw == everyByteSpill {
			// A 64-bit spill on both sides: every byte's kind matches in
			// any mode, and slotSafe's walk ends comparing the spilled
			// registers, as scalars or at the last byte.
			return e.regSafe(&os.Spilled, &cs.Spilled, mode)
		}
		if w == cw && isPlainWord(w) && (mode != RangeWithin || !os.IsAllMisc(allowUninit)) {
			// Every byte matches itself and none holds an object. (In
			// RangeWithin mode an all-MISC pair still records scalar
			// ids, so it takes the slow path.)
			return true
		}
	}
	return e.slotSafe(os, cur, spi, mode, allowUninit)
}

// skipsUnread reports whether a comparison in mode ignores what old never
// relied on (NotInit registers, INVALID stack bytes, MISC ones where
// uninitialised reads are allowed), so that a sealed old frame's summary
// (inited registers, unread slots, the hints) serves it: NotExact, and
// RangeWithin with LoopUnreadSafe. Comparisons against the checkpoints of
// a loop whose back-edges are pending are RangeWithin, and on
// states-heavy programs (falco's sendmmsg_x) they are most comparisons.
func (e *EqualEnv) skipsUnread(mode ExactMode) bool {
	return mode == NotExact || mode == RangeWithin && e.LoopUnreadSafe
}

// stackSafeSealed is stackSafe in NotExact mode for a sealed old frame: the
// summary names the unread slots, so only the others are visited.
func (e *EqualEnv) stackSafeSealed(old, cur *Frame, allowUninit bool, done uint64) bool {
	// cur is the working state, dense, in every comparison the search
	// makes: its slots are read without asking its layout each time.
	curStack, dense := cur.stack, !cur.packed
	loose := old.sum.looseSlots
	for todo := old.sum.unread(old.NumSlots(), allowUninit) &^ done; todo != 0; todo &= todo - 1 {
		spi := bits.TrailingZeros64(todo)
		var cs *Slot
		if dense {
			if spi < len(curStack) {
				cs = &curStack[spi]
				if loose&(1<<spi) != 0 {
					// sealedSlotSafe's first case, inline: most slots
					// a comparison visits are loose spills.
					if readsAsFlaglessScalar(cs, allowUninit) {
						continue
					}
					old.sum.noteHint(spi)
					return false
				}
			}
		} else {
			cs = curSlot(cur, spi)
		}
		if !e.sealedSlotSafe(old, cur, cs, spi, allowUninit) {
			old.sum.noteHint(spi)
			return false
		}
	}
	return true
}

// noteHint records slot spi as where the last comparison against the
// frame failed (hintFails tests it first next time), writing the summary
// only when the hint changes: a stored state is read far more often than
// it fails.
func (m *stackSummary) noteHint(spi int) {
	if h := uint8(spi + 1); m.hint != h {
		m.hint = h
	}
}

// unread is the set of slots of a sealed frame with n slots that a
// NotExact comparison must visit: all but those no path below reads.
func (m *stackSummary) unread(n int, allowUninit bool) uint64 {
	skip := m.invalid
	if allowUninit {
		skip = m.misc
	}
	todo := ^skip
	if n < 64 {
		todo &= 1<<n - 1
	}
	return todo
}

// hintFails reports whether the slot of old's sealed stack where the
// last comparison against old failed fails again against cur; checked
// names the slot when it was compared and found safe. Misses
// dominate comparisons (they are most of them on large programs), most
// fail in the stack, and against one checkpoint mostly at the same slot
// (a spill that differs by path); testing that slot before the registers
// and the rest of the stack turns such a miss into one slot's test. The
// answer of states_equal is a conjunction whose id pairs must form a
// bijection whatever the order they are met in, so testing a slot early
// changes no answer. mode is NotExact or RangeWithin with LoopUnreadSafe
// (skipsUnread): the modes whose comparisons skip old's unread slots.
func (e *EqualEnv) hintFails(old, cur *Frame, mode ExactMode, allowUninit bool) (fails bool, checked uint64) {
	h := int(old.sum.hint) - 1
	if h < 0 || !old.sum.valid || old.sum.unread(old.NumSlots(), allowUninit)&(1<<h) == 0 {
		return false, 0
	}
	if mode == NotExact {
		if !e.sealedSlotSafe(old, cur, curSlot(cur, h), h, allowUninit) {
			return true, 0
		}
	} else if !e.anySlotSafe(old, cur, h, mode, allowUninit) {
		return true, 0
	}
	return false, 1 << h
}

// curSlot returns slot spi of cur, or nil when cur has not allocated it.
func curSlot(cur *Frame, spi int) *Slot {
	if spi < cur.NumSlots() {
		return cur.Slot(spi)
	}
	return nil
}

// sealedSlotSafe is slotSafe in NotExact mode for slot spi of a sealed old
// frame, deciding on the packed kinds of both slots where it can; cs is
// cur's slot spi (curSlot). The slot is one the comparison reads
// (stackSummary.unread), so some byte of it was written and old holds it
// whatever its layout.
func (e *EqualEnv) sealedSlotSafe(old, cur *Frame, cs *Slot, spi int, allowUninit bool) bool {
	if cs != nil {
		if old.sum.looseSlots&(1<<spi) != 0 {
			// A loose scalar spilled whole: what follows, without
			// reading old's slot, or even finding where it is stored
			// (see stackSummary).
			return readsAsFlaglessScalar(cs, allowUninit)
		}
		k := old.storeIndex(spi)
		os := &old.stack[k]
		w := old.sum.words[k]
		cw := slotWord(cs)
		if old.sum.plain&(1<<spi) != 0 && w == cw {
			// Identical plain slots: every byte matches itself.
			return true
		}
		if allowUninit && SlotType(w) != StackSpill {
			// Not a 64-bit spill, so never compared as a scalar:
			// slotSafe's walk on the packed words.
			return e.wordSlotSafe(os, cs, w, cw)
		}
		if w == everyByteSpill {
			// A 64-bit spill: slotSafe's walk, without reading old's
			// bytes again. A scalar compares with whatever cur reads
			// as a scalar; otherwise every byte of cur must be a spill
			// too and the spilled registers are compared.
			o := &os.Spilled
			if o.Type == ScalarValue {
				if cr := e.scalarForStack(cs); cr != nil {
					return e.regSafe(o, cr, NotExact)
				}
			}
			return cw == everyByteSpill && e.regSafe(o, &cs.Spilled, NotExact)
		}
		return e.slotSafe(os, cur, spi, NotExact, allowUninit)
	}
	return e.slotSafe(old.Slot(spi), cur, spi, NotExact, allowUninit)
}

// Byte-parallel tests on the eight kinds of a slot packed into one word
// (slotWord). They rely on the kinds' values: INVALID 0, SPILL 1, MISC 2,
// ZERO 3, object kinds above; TestSlotWordPredicates checks them against
// the byte-by-byte definitions.
const (
	everyByte     = 0x0101010101010101 // bit 0 of every byte
	everyByteMisc = everyByte * uint64(StackMisc)
	// everyByteSpill is the word of a 64-bit spill.
	everyByteSpill = everyByte * uint64(StackSpill)
	aboveZero      = everyByte * (0xff &^ uint64(StackZero)) // bits no plain kind has
)

// slotWord packs the kinds of s, byte i of the word for Types[i].
func slotWord(s *Slot) uint64 {
	t := &s.Types
	return uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
}

// isPlain reports whether every byte of s is INVALID, MISC or ZERO.
func isPlain(s *Slot) bool { return isPlainWord(slotWord(s)) }

// isPlainWord is isPlain on a packed slot word.
func isPlainWord(w uint64) bool {
	// Kinds 0..3 only, and no SPILL (1): bit 0 set with bit 1 clear.
	return w&aboveZero == 0 && w&^(w>>1)&everyByte == 0
}

// kindsMatch reports whether every byte of the old slot word w that is
// neither INVALID nor MISC has the same kind in the current slot word cw.
// It tests the eight bytes at once (a byte loop was 1.7% of a corpus
// pass): the bytes of old that count are those with a bit other than
// MISC's (bit 1) set, and none of them may differ from cur's.
func kindsMatch(w, cw uint64) bool {
	counted := nonzeroBytes(w &^ everyByteMisc)
	return nonzeroBytes(w^cw)&counted == 0
}

// nonzeroBytes returns the word whose byte i is 0x80 when byte i of x is
// not zero, and 0 otherwise. Adding 0x7f to the low seven bits of a byte
// sets its top bit exactly when one of them is set, and carries no
// further.
func nonzeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ((x & low7) + low7 | x) &^ low7
}

// wordSlotSafe is slotSafe in NotExact mode, with uninitialised reads
// allowed, for an old slot os (packed word w) whose first byte is not a
// spill, against the allocated current slot cs (word cw). Such a slot
// never reads as a scalar (an all-MISC one is skipped before), so the walk
// is: INVALID and MISC bytes of old are ignored, every other byte must be
// the same kind in cur, and if the last byte is one of those, what the
// slots hold must match.
func (e *EqualEnv) wordSlotSafe(os, cs *Slot, w, cw uint64) bool {
	if !kindsMatch(w, cw) {
		return false
	}
	last := SlotType(w >> (8 * lastByte))
	if last == StackInvalid || last == StackMisc {
		return true
	}
	return e.objectSafe(last, os, cs, NotExact)
}

// isUnread reports whether stackSafe skips every byte of the old slot s:
// all INVALID, or MISC when uninitialised reads are allowed anyway.
func isUnread(s *Slot, allowUninit bool) bool {
	w := slotWord(s)
	return w == 0 || (allowUninit && w&^everyByteMisc == 0)
}

// slotSafe is the kernel's byte walk over old slot spi.
func (e *EqualEnv) slotSafe(os *Slot, cur *Frame, spi int, mode ExactMode, allowUninit bool) bool {
	inCur := spi < cur.NumSlots()
	var cs *Slot
	if inCur {
		cs = cur.Slot(spi)
	}
	for b, ot := range os.Types {
		if mode != NotExact && (mode == Exact || !e.LoopUnreadSafe) && (!inCur || ot != cs.Types[b]) {
			return false
		}
		if ot == StackInvalid || (allowUninit && ot == StackMisc) {
			continue
		}
		if !inCur {
			return false
		}
		if oldReg, curReg := e.scalarForStack(os), e.scalarForStack(cs); oldReg != nil && curReg != nil {
			// Both read as whole scalars: compare them as registers,
			// which also checks scalar ids, and skip the rest of the
			// slot. (This can only happen at byte 0.)
			return e.regSafe(oldReg, curReg, mode)
		}
		ct := cs.Types[b]
		if ot == StackMisc && ct == StackZero {
			continue
		}
		if ot != ct {
			return false
		}
		if b == lastByte && !e.slotObjectSafe(os, cs, mode) {
			return false
		}
	}
	return true
}

// slotObjectSafe compares what two slots of the same kind hold, once all
// their bytes matched.
func (e *EqualEnv) slotObjectSafe(os, cs *Slot, mode ExactMode) bool {
	return e.objectSafe(os.Types[lastByte], os, cs, mode)
}

// objectSafe is slotObjectSafe for slots whose last byte is of kind kind,
// which the caller may already know without reading os.
func (e *EqualEnv) objectSafe(kind SlotType, os, cs *Slot, mode ExactMode) bool {
	o, c := &os.Spilled, &cs.Spilled
	switch kind {
	case StackSpill:
		return e.regSafe(o, c, mode)
	case StackDynptr:
		return o.Aux == c.Aux && o.Off == c.Off &&
			e.checkIDs(uint64(o.RefObjID), uint64(c.RefObjID))
	case StackIter:
		// The depth (Range) is deliberately ignored: it only exists to
		// keep the infinite-loop check from firing between iterations.
		// The slot's type is compared (6.18's stacksafe; 6.12 did not):
		// an RCU-protected iterator (task, css) turns untrusted at
		// bpf_rcu_read_unlock, and a walk resumed in a later RCU read
		// section must not match one made in a single section.
		return o.Aux == c.Aux && o.Off == c.Off && o.Type == c.Type && o.Flags == c.Flags &&
			e.checkIDs(uint64(o.RefObjID), uint64(c.RefObjID))
	case StackIRQFlag:
		return e.checkIDs(uint64(o.RefObjID), uint64(c.RefObjID)) && o.Aux == c.Aux
	case StackMisc, StackZero, StackInvalid:
		return true
	default:
		return false
	}
}

// refSafe reports whether old and cur hold the same references and locks,
// up to id renaming (refsafe).
func (e *EqualEnv) refSafe(old, cur *State) bool {
	if len(old.Refs) != len(cur.Refs) ||
		old.ActiveLocks != cur.ActiveLocks ||
		old.ActivePreemptLocks != cur.ActivePreemptLocks ||
		old.ActiveRCU != cur.ActiveRCU {
		return false
	}
	if !e.checkIDs(uint64(old.ActiveIRQID), uint64(cur.ActiveIRQID)) {
		return false
	}
	if !e.checkIDs(uint64(old.ActiveLockID), uint64(cur.ActiveLockID)) ||
		old.ActiveLockPtr != cur.ActiveLockPtr {
		return false
	}
	for i := range old.Refs {
		if !e.checkIDs(uint64(old.Refs[i].ID), uint64(cur.Refs[i].ID)) ||
			old.Refs[i].Kind != cur.Refs[i].Kind {
			return false
		}
		// A lock must be the same lock, not just a lock.
		if IsLockRef(old.Refs[i].Kind) && old.Refs[i].Ptr != cur.Refs[i].Ptr {
			return false
		}
	}
	return true
}

// regsToCompare is the set of registers of old's frame, live at insn,
// that a comparison must visit (bit i for ri): one that skips what old
// never relied on (skipUnread, see skipsUnread) skips the NotInit
// registers of a sealed frame.
func (e *EqualEnv) regsToCompare(old *Frame, insn int, skipUnread bool) uint16 {
	live := allRegsLive
	if e.LiveRegs != nil {
		// Only r0-r10 are compared: an instruction naming a register
		// number past r10 (which the search refuses when it reaches it)
		// may set a higher bit in its liveness.
		live = e.LiveRegs(insn) & allRegsLive
	}
	if skipUnread && old.sum.regsValid {
		live &= old.sum.inited
	}
	return live
}

// regsSafe compares the registers of one frame named in todo. A NotExact
// failure against a sealed frame is remembered in its summary's regHint
// (see regHintFails).
func (e *EqualEnv) regsSafe(old, cur *Frame, todo uint16, mode ExactMode) bool {
	loose := uint16(0)
	if mode == NotExact {
		loose = old.sum.looseRegs
	}
	for ; todo != 0; todo &= todo - 1 {
		i := bits.TrailingZeros16(todo)
		if loose&(1<<i) != 0 {
			if !looseSafe(cur.Reg(i)) {
				if old.sum.regHint != uint8(i+1) {
					old.sum.regHint = uint8(i + 1)
				}
				return false
			}
			continue
		}
		if !e.regSafe(old.Reg(i), cur.Reg(i), mode) {
			// Written only when it changes: old is a stored state,
			// read by every comparison at its instruction.
			if mode != Exact && old.sum.regsValid && old.sum.regHint != uint8(i+1) {
				old.sum.regHint = uint8(i + 1)
			}
			return false
		}
	}
	return true
}

// regHintFails is hintFails for registers: whether the register of old's
// sealed frame where the last comparison against it failed, if it is among
// todo, fails again against cur; checked names it when it was compared and
// found safe. On the kernel's scale programs two thirds of the comparisons
// fail at a register, mostly the same one per checkpoint: testing it first
// spares reading the registers before it in both states.
func (e *EqualEnv) regHintFails(old, cur *Frame, todo uint16, mode ExactMode) (fails bool, checked uint16) {
	h := int(old.sum.regHint) - 1
	if h < 0 || todo&(1<<h) == 0 {
		return false, 0
	}
	if mode == NotExact && old.sum.looseRegs&(1<<h) != 0 {
		if !looseSafe(cur.Reg(h)) {
			return true, 0
		}
	} else if !e.regSafe(old.Reg(h), cur.Reg(h), mode) {
		return true, 0
	}
	return false, 1 << h
}

// isLoose reports whether r is a scalar without precision mark or flags:
// in a NotExact comparison, such an old register subsumes exactly the
// current registers looseSafe accepts (regSafe answers at its precision
// test), whatever its value.
func isLoose(r *Reg) bool {
	return r.Type == ScalarValue && r.Flags == 0 && !r.Precise()
}

// looseSafe is regSafe in NotExact mode for an old register that isLoose,
// without reading it: cur must be a scalar without flags too.
func looseSafe(cur *Reg) bool {
	return cur.Type == ScalarValue && cur.Flags == 0
}

// StatesEqual reports whether the checkpoint old subsumes cur, so that the
// path reaching cur can be pruned (the kernel's states_equal). Both must be
// at the same instruction; it compares the call chains, references, and
// every frame, stopping at the first difference.
func (e *EqualEnv) StatesEqual(old, cur *State, mode ExactMode) bool {
	if old.CurFrame != cur.CurFrame {
		return false
	}
	e.resetIDMap()
	e.missSpi = noMiss
	// A state from a speculative path must never prune a real one.
	if old.Speculative && !cur.Speculative {
		return false
	}
	if old.InSleepable != cur.InSleepable {
		return false
	}
	// The answer is a conjunction, and the id correspondence it builds
	// is a set of pairs that must be one to one whatever the order they
	// are met in (each register and slot compared once), so the checks
	// run in the order most likely to fail early for the least memory
	// read of the (cold) old state: the slot and the register where the
	// last comparison against old failed (hintFails, regHintFails), the
	// references and locks (the kernel's refsafe, first there, rarely
	// decides), the other live registers, then the call chain and
	// callback depths (they live in another cache line of the frame and
	// rarely differ), then the rest of the stacks.
	n := int(old.CurFrame)
	var checked [MaxCallFrames]uint64
	hinted := e.skipsUnread(mode)
	if hinted {
		for i := 0; i <= n; i++ {
			fails, c := e.hintFails(old.Frames[i], cur.Frames[i], mode, !e.Unprivileged)
			if fails {
				e.noteHintMiss(old, i, int(old.Frames[i].sum.hint)-1)
				return false
			}
			checked[i] = c
		}
	}
	var regs [MaxCallFrames]uint16
	for i := 0; i <= n; i++ {
		regs[i] = e.regsToCompare(old.Frames[i], old.FrameInsnIdx(i), hinted)
		if !hinted {
			continue
		}
		fails, r := e.regHintFails(old.Frames[i], cur.Frames[i], regs[i], mode)
		if fails {
			return false
		}
		regs[i] &^= r
	}
	if !e.refSafe(old, cur) {
		return false
	}
	for i := 0; i <= n; i++ {
		if !e.regsSafe(old.Frames[i], cur.Frames[i], regs[i], mode) {
			return false
		}
	}
	for i := 0; i <= n; i++ {
		fo, fc := old.Frames[i], cur.Frames[i]
		if fo.CallSite != fc.CallSite || fo.CallbackDepth > fc.CallbackDepth {
			return false
		}
	}
	for i := 0; i <= n; i++ {
		if !e.stackSafe(old.Frames[i], cur.Frames[i], mode, checked[i]) {
			return false
		}
	}
	return true
}

// MaybeLooping reports whether cur's top frame registers are identical to
// old's, ids included (states_maybe_looping): the cheap pre-check before
// an Exact comparison declares an infinite loop.
//
// It runs against every ancestor a loop's arrival meets in its bucket, and
// successive arrivals mostly differ from an ancestor in the same register
// (the loop's counter): the register that differed the last time against
// a stored frame (its summary's loopHint) is tested first. The answer is
// a conjunction of tests without effects, so their order changes nothing.
func MaybeLooping(old, cur *State) bool {
	if old.CurFrame != cur.CurFrame {
		return false
	}
	fo, fc := old.Cur(), cur.Cur()
	h := int(fo.sum.loopHint) - 1
	if h >= 0 && !sameLoopReg(fo.Reg(h), fc.Reg(h)) {
		return false
	}
	for i := range NumRegs {
		if i != h && !sameLoopReg(fo.Reg(i), fc.Reg(i)) {
			if fo.sum.regsValid {
				fo.sum.loopHint = uint8(i + 1)
			}
			return false
		}
	}
	return true
}

// sameLoopReg is MaybeLooping's test of one register: the same value and
// the same ids.
func sameLoopReg(o, c *Reg) bool {
	return sameValue(o, c) && o.ID == c.ID && o.RefObjID == c.RefObjID
}
