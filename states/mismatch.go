package states

import (
	"math"
	"math/bits"
	"strconv"
)

// Why a checkpoint does not subsume the current state.
//
// StatesEqual answers yes or no, as fast as it can: it runs at every prune
// point against every stored state. A profile wants to know why the answer
// was no: which register or stack slot of which frame, and how it differs.
// Mismatch answers that, for profiling only. It walks the two states in
// StatesEqual's order (call depth, speculative and sleepable flags,
// references, the live registers of each frame, call sites, stacks) with
// the same predicates (refSafe, regSafe, slotSafe), so the id
// correspondence it builds is the one StatesEqual built up to the first
// difference, and only then classifies that difference. The classification
// looks at the value parts (type, offset, bounds, tnum) first; a register
// whose parts all match failed on its ids.

// MismatchKind is how a stored state fails to subsume the current one at
// the first difference.
type MismatchKind uint8

// Mismatch kinds. Their String forms are stable names (profiles written as
// JSON use them).
const (
	// MismatchNone: the stored state subsumes the current one.
	MismatchNone MismatchKind = iota
	// MismatchCallChain: a different call depth, call site, or a deeper
	// callback nesting in the stored state.
	MismatchCallChain
	// MismatchSpeculative: the stored state is on a speculative path, the
	// current one is not.
	MismatchSpeculative
	// MismatchSleepable: one state is in a sleepable section, the other not.
	MismatchSleepable
	// MismatchRefs: held references, locks, RCU or preemption sections
	// differ.
	MismatchRefs
	// MismatchType: the register kinds differ (scalar vs pointer, two
	// pointer kinds, a maybe-NULL pointer vs a checked one).
	MismatchType
	// MismatchUninit: the stored register or slot was never written and
	// the current one was (only while a loop's marks are incomplete, when
	// uninitialised must match uninitialised).
	MismatchUninit
	// MismatchRange: the current value's bounds are not within the stored
	// ones (or, in an exact comparison, differ).
	MismatchRange
	// MismatchTnum: the bounds nest but the known bits do not.
	MismatchTnum
	// MismatchOffset: pointers to different objects, fixed offsets, frames
	// or sizes.
	MismatchOffset
	// MismatchPacketRange: the current packet pointer has fewer bytes
	// checked against data_end than the stored one.
	MismatchPacketRange
	// MismatchID: values match but their ids do not correspond: registers
	// linked in the stored state are not in the current one, pointers of
	// one lookup or one reference are split.
	MismatchID
	// MismatchSpill: a stack slot holds a spilled register in one state
	// and not in the other.
	MismatchSpill
	// MismatchSlot: the stack slot kinds differ otherwise (zero vs unknown
	// bytes, a slot the current state never allocated, stack objects such
	// as dynptrs and iterators that differ).
	MismatchSlot
	// MismatchUnknown: no difference found although the comparison
	// failed; a bug in Mismatch.
	MismatchUnknown
	// MismatchIterInactive: at an iterator's next call, the current
	// state's iterator is no longer active (drained): an earlier iteration
	// of the same path converges the loop only for an active iterator, so
	// the two states are not compared at all.
	MismatchIterInactive
)

var mismatchNames = [...]string{
	MismatchNone:         "none",
	MismatchCallChain:    "call_chain",
	MismatchSpeculative:  "speculative",
	MismatchSleepable:    "sleepable",
	MismatchRefs:         "refs",
	MismatchType:         "type",
	MismatchUninit:       "uninit",
	MismatchRange:        "range",
	MismatchTnum:         "tnum",
	MismatchOffset:       "offset",
	MismatchPacketRange:  "pkt_range",
	MismatchID:           "id",
	MismatchSpill:        "spill",
	MismatchSlot:         "slot",
	MismatchUnknown:      "unknown",
	MismatchIterInactive: "iter_inactive",
}

// String returns the kind's stable name ("range", "spill"...).
func (k MismatchKind) String() string {
	if int(k) < len(mismatchNames) {
		return mismatchNames[k]
	}
	return "unknown"
}

// Mismatch is the first difference that keeps a stored state from
// subsuming the current one.
type Mismatch struct {
	Kind MismatchKind
	// Frame is the call frame of the register or slot, -1 when the
	// difference is in no frame (references, call chain).
	Frame int8
	// Reg is the register that differs, -1 when it is no register.
	Reg int8
	// Slot is the stack slot index (spi: fp-8*(Slot+1)) that differs, -1
	// when it is no slot.
	Slot int16
	// Old and Cur are the differing registers, or the spilled registers
	// of the differing slots, stored state first.
	Old, Cur Reg
	// OldSlot and CurSlot are the byte kinds of the differing slots.
	OldSlot, CurSlot [SlotSize]SlotType
}

// noMismatch is a Mismatch locating nothing.
var noMismatch = Mismatch{Frame: -1, Reg: -1, Slot: -1}

// Mismatch reports why StatesEqual(old, cur, mode) is false, or a Mismatch
// of kind MismatchNone when it is true. It is meant for profiling, not for
// deciding: StatesEqual is the fast path.
func (e *EqualEnv) Mismatch(old, cur *State, mode ExactMode) Mismatch {
	m := noMismatch
	if old.CurFrame != cur.CurFrame {
		m.Kind = MismatchCallChain
		return m
	}
	e.resetIDMap()
	switch {
	case old.Speculative && !cur.Speculative:
		m.Kind = MismatchSpeculative
		return m
	case old.InSleepable != cur.InSleepable:
		m.Kind = MismatchSleepable
		return m
	case !e.refSafe(old, cur):
		m.Kind = MismatchRefs
		return m
	}
	n := int(old.CurFrame)
	for i := 0; i <= n; i++ {
		if m, ok := e.regsMismatch(old.Frames[i], cur.Frames[i], i, old.FrameInsnIdx(i), mode); ok {
			return m
		}
	}
	for i := 0; i <= n; i++ {
		fo, fc := old.Frames[i], cur.Frames[i]
		if fo.CallSite != fc.CallSite || fo.CallbackDepth > fc.CallbackDepth {
			m.Kind, m.Frame = MismatchCallChain, int8(i)
			return m
		}
	}
	for i := 0; i <= n; i++ {
		if m, ok := e.stackMismatch(old.Frames[i], cur.Frames[i], i, mode); ok {
			return m
		}
	}
	return m
}

// regsMismatch is regsSafe reporting the first live register that differs.
func (e *EqualEnv) regsMismatch(old, cur *Frame, frame, insn int, mode ExactMode) (Mismatch, bool) {
	live := allRegsLive
	if e.LiveRegs != nil {
		live = e.LiveRegs(insn)
	}
	// Only the live registers are looked up: a packed frame's lookup
	// costs a mask test and a count, and a profiled run (the budget
	// explanation of a program that reaches the limit) classifies every
	// miss, up to a hundred per prune point on loop-heavy programs.
	for m := live & allRegsLive; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		o, c := old.Reg(i), cur.Reg(i)
		if !e.regSafe(o, c, mode) {
			m := noMismatch
			m.Kind, m.Frame, m.Reg = regMismatchKind(o, c, mode), int8(frame), int8(i)
			m.Old, m.Cur = *o, *c
			return m, true
		}
	}
	return Mismatch{}, false
}

// stackMismatch is stackSafe reporting the first slot that differs. It
// walks every slot with the kernel's byte walk (slotSafe), which decides
// as stackSafe's shortcuts do.
func (e *EqualEnv) stackMismatch(old, cur *Frame, frame int, mode ExactMode) (Mismatch, bool) {
	allowUninit := !e.Unprivileged
	for spi := range old.NumSlots() {
		os := old.Slot(spi)
		if mode == NotExact && isUnread(os, allowUninit) {
			continue
		}
		if !e.slotSafe(os, cur, spi, mode, allowUninit) {
			m := e.slotMismatch(os, cur, spi, mode, allowUninit)
			m.Frame = int8(frame)
			return m, true
		}
	}
	return Mismatch{}, false
}

// slotMismatch classifies a slot slotSafe refused.
func (e *EqualEnv) slotMismatch(os *Slot, cur *Frame, spi int, mode ExactMode, allowUninit bool) Mismatch {
	m := noMismatch
	m.Slot, m.OldSlot, m.Old = int16(spi), os.Types, os.Spilled
	if spi >= cur.NumSlots() {
		// The current state never wrote this slot.
		m.Kind = MismatchSlot
		return m
	}
	cs := cur.Slot(spi)
	m.CurSlot, m.Cur = cs.Types, cs.Spilled
	if mode != NotExact {
		// Every byte's kind must match before anything else.
		for b, ot := range os.Types {
			if ot != cs.Types[b] {
				m.Kind = slotKindMismatch(ot, cs.Types[b])
				return m
			}
		}
	}
	if oldReg, curReg := e.scalarForStack(os), e.scalarForStack(cs); oldReg != nil && curReg != nil {
		m.Old, m.Cur = *oldReg, *curReg
		m.Kind = regMismatchKind(oldReg, curReg, mode)
		return m
	}
	for b, ot := range os.Types {
		ct := cs.Types[b]
		if ot == StackInvalid || (allowUninit && ot == StackMisc) || (ot == StackMisc && ct == StackZero) {
			continue
		}
		if ot != ct {
			m.Kind = slotKindMismatch(ot, ct)
			return m
		}
	}
	switch os.Types[lastByte] {
	case StackSpill:
		m.Kind = regMismatchKind(&os.Spilled, &cs.Spilled, mode)
	case StackDynptr, StackIter, StackIRQFlag:
		if os.Spilled.Aux != cs.Spilled.Aux || os.Spilled.Off != cs.Spilled.Off {
			m.Kind = MismatchSlot
		} else {
			m.Kind = MismatchID
		}
	default:
		m.Kind = MismatchUnknown
	}
	return m
}

// slotKindMismatch classifies two different byte kinds.
func slotKindMismatch(old, cur SlotType) MismatchKind {
	switch {
	case old == StackInvalid:
		return MismatchUninit
	case old == StackSpill || cur == StackSpill:
		return MismatchSpill
	default:
		return MismatchSlot
	}
}

// regMismatchKind classifies a register regSafe refused: the value parts
// first, ids last.
func regMismatchKind(old, cur *Reg, mode ExactMode) MismatchKind {
	switch {
	case old.Type == NotInit && cur.Type != NotInit:
		return MismatchUninit
	case old.Type != cur.Type || old.Flags != cur.Flags:
		return MismatchType
	case mode == Exact:
		return exactMismatchKind(old, cur)
	}
	switch old.Type {
	case ScalarValue:
		if old.ID != 0 && (old.ID&AddConstID != cur.ID&AddConstID || (old.ID&AddConstID != 0 && old.Off != cur.Off)) {
			return MismatchID
		}
		return boundsMismatchKind(old, cur)
	case PtrToMapKey, PtrToMapValue, PtrToMem, PtrToBuf, PtrToTPBuffer:
		if !old.sameObject(cur) {
			return MismatchOffset
		}
		return boundsMismatchKind(old, cur)
	case PtrToPacketMeta, PtrToPacket:
		if old.Range > cur.Range {
			return MismatchPacketRange
		}
		if old.Off != cur.Off {
			return MismatchOffset
		}
		return boundsMismatchKind(old, cur)
	case PtrToStack:
		if old.FrameNo() != cur.FrameNo() {
			return MismatchOffset
		}
		return exactMismatchKind(old, cur)
	default:
		return exactMismatchKind(old, cur)
	}
}

// boundsMismatchKind classifies a register whose bounds or tnum may not
// nest.
func boundsMismatchKind(old, cur *Reg) MismatchKind {
	switch {
	case !old.RangeWithin(cur.Scalar):
		return MismatchRange
	case !old.Var.In(cur.Var):
		return MismatchTnum
	default:
		return MismatchID
	}
}

// exactMismatchKind classifies two registers of one type that must be
// identical up to ids (regs_exact).
func exactMismatchKind(old, cur *Reg) MismatchKind {
	switch {
	case !old.sameObject(cur):
		return MismatchOffset
	case old.Var != cur.Var && old.Scalar.boundsEqual(cur.Scalar):
		return MismatchTnum
	case old.Scalar != cur.Scalar:
		return MismatchRange
	default:
		return MismatchID
	}
}

// boundsEqual reports whether s and o have the same eight bounds.
func (s Scalar) boundsEqual(o Scalar) bool {
	s.Var = o.Var
	return s == o
}

// Where names the location of the difference the kernel's log way: "R3",
// "fp-16", with " (frame 1)" when the state has several frames and the
// difference is not in the innermost, or "" for a difference in no frame.
// curFrame is the innermost frame of the compared states.
func (m Mismatch) Where(curFrame int) string {
	var s string
	switch {
	case m.Reg >= 0:
		s = "R" + strconv.Itoa(int(m.Reg))
	case m.Slot >= 0:
		s = "fp" + strconv.Itoa(SlotOffset(int(m.Slot)))
	default:
		return ""
	}
	if int(m.Frame) != curFrame {
		s += " (frame " + strconv.Itoa(int(m.Frame)) + ")"
	}
	return s
}

// Values renders the two differing values, stored state first, as short
// as the kind allows: a scalar range as "[0,255]", a slot as its byte kinds
// and spilled register, other registers in the log's form. Both are ""
// when the difference is in no register or slot.
func (m Mismatch) Values(p *Printer) (old, cur string) {
	switch {
	case m.Reg >= 0:
		return m.regValue(p, &m.Old), m.regValue(p, &m.Cur)
	case m.Slot >= 0:
		return m.slotValue(p, m.OldSlot, &m.Old), m.slotValue(p, m.CurSlot, &m.Cur)
	}
	return "", ""
}

// regValue renders r for the mismatch's kind.
func (m Mismatch) regValue(p *Printer, r *Reg) string {
	if r.Type == ScalarValue && (m.Kind == MismatchRange || m.Kind == MismatchTnum) {
		return compactScalar(r, m.Kind == MismatchTnum)
	}
	if r.Type == NotInit {
		return "uninit"
	}
	return string(p.AppendReg(nil, r, int32(m.Frame)))
}

// slotValue renders a slot's byte kinds ("mmmmmmmm"), followed by its
// spilled register when it holds one.
func (m Mismatch) slotValue(p *Printer, types [SlotSize]SlotType, spilled *Reg) string {
	var chars [SlotSize]byte
	for i, t := range types {
		chars[i] = t.String()[0]
	}
	s := string(chars[:])
	if types[lastByte] == StackSpill {
		s += " " + m.regValue(p, spilled)
	}
	return s
}

// compactScalar renders a scalar for a range comparison: a constant as
// its value, an unbounded one as "unknown", a non-negative range as "[umin,umax]", a signed one spanning
// zero as "s[smin,smax]", anything else with every bound in the log's
// form; withTnum adds the known bits ("[0,255] var_off=(0x0; 0xff)").
func compactScalar(r *Reg, withTnum bool) string {
	switch {
	case r.Var.IsConst():
		return string(appendSnum(nil, int64(r.Var.Value)))
	case r.Scalar == UnknownScalar():
		return "unknown"
	}
	var b []byte
	switch {
	case r.SMin >= 0:
		// Then the signed and unsigned 64-bit bounds are the same.
		b = appendUnum(append(appendUnum(append(b, '['), r.UMin), ','), r.UMax)
		b = append(b, ']')
	case r.SMax >= 0 && r.UMin == 0 && r.UMax == math.MaxUint64:
		b = appendSnum(append(appendSnum(append(b, "s["...), r.SMin), ','), r.SMax)
		b = append(b, ']')
	default:
		b, _ = appendRanges(append(b, '('), &r.Scalar, "")
		b = append(b, ')')
	}
	if withTnum {
		b = appendTnum(append(b, " var_off="...), r.Var)
	}
	return string(b)
}
