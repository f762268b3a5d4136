package states

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Register builders for comparison tables.

func notInit() Reg { var r Reg; r.MarkNotInit(); return r }

func unknown() Reg { var r Reg; r.MarkUnknown(false); return r }

func konst(v uint64, precise bool) Reg {
	var r Reg
	r.MarkConst(v)
	r.SetPrecise(precise)
	return r
}

// bounded is a scalar in [lo, hi] with bits outside mask known zero.
func bounded(lo, hi, mask uint64, precise bool, id uint32) Reg {
	return marked(Reg{Scalar: smallRange(lo, hi, mask), Type: ScalarValue, ID: id}, 0, precise)
}

func ptr(t RegType, flags RegFlags, edit func(r *Reg)) Reg {
	var r Reg
	r.MarkPtr(t, flags)
	if edit != nil {
		edit(&r)
	}
	return r
}

func mapValue(aux uint32, off int32) Reg {
	return ptr(PtrToMapValue, 0, func(r *Reg) { r.Aux, r.Off = aux, off })
}

func pkt(off, rng int32, id uint32) Reg {
	return ptr(PtrToPacket, 0, func(r *Reg) { r.Off, r.Range, r.ID = off, rng, id })
}

func stackPtr(off int32, frame uint8) Reg {
	return ptr(PtrToStack, 0, func(r *Reg) { r.Off = off; r.SetFrameNo(int(frame)) })
}

func withVar(r Reg, s Scalar) Reg { r.Scalar = s; return r }

func TestRegSafe(t *testing.T) {
	tests := []struct {
		name     string
		old, cur Reg
		mode     ExactMode
		want     bool
	}{
		// NotInit.
		{"old not init subsumes a scalar", notInit(), konst(1, false), NotExact, true},
		{"old not init subsumes a pointer", notInit(), ptr(PtrToCtx, 0, nil), NotExact, true},
		{"range-within: old not init needs cur not init", notInit(), konst(1, false), RangeWithin, false},
		{"range-within: not init vs not init", notInit(), notInit(), RangeWithin, true},
		{"cur not init never satisfies a used old", konst(1, false), notInit(), NotExact, false},

		// Scalars and precision.
		{"imprecise old matches any scalar", bounded(0, 255, 0xff, false, 0), unknown(), NotExact, true},
		{"imprecise old is range-checked in range-within", bounded(0, 255, 0xff, false, 0), unknown(), RangeWithin, false},
		{"imprecise old const vs other const", konst(5, false), konst(6, false), NotExact, true},
		{"precise old const vs other const", konst(5, true), konst(6, false), NotExact, false},
		{"precise old const vs same const", konst(5, true), konst(5, false), NotExact, true},
		{"precise wide old subsumes narrow cur", bounded(0, 255, 0xff, true, 0), bounded(0, 10, 0xf, false, 0), NotExact, true},
		{"precise narrow old does not subsume wide cur", bounded(0, 10, 0xf, true, 0), bounded(0, 255, 0xff, false, 0), NotExact, false},
		{"precise old vs const outside range", bounded(0, 255, 0xff, true, 0), konst(300, false), NotExact, false},
		{"range fits but tnum does not", bounded(0, 254, 0xfe, true, 0), bounded(0, 1, 0x1, false, 0), NotExact, false},
		{"precise old vs unknown", bounded(0, 255, 0xff, true, 0), unknown(), NotExact, false},
		{"unknown precise old vs anything", func() Reg { r := unknown(); r.SetPrecise(true); return r }(), konst(9, false), NotExact, true},
		{"cur precision is irrelevant", konst(5, false), konst(6, true), NotExact, true},

		// Scalar ids (6.18: a zero id on either side gets a fresh id).
		{"old unlinked vs cur linked", konst(5, true), func() Reg { r := konst(5, false); r.ID = 3; return r }(), NotExact, true},
		{"old linked vs cur unlinked", func() Reg { r := konst(5, true); r.ID = 3; return r }(), konst(5, false), NotExact, true},
		{"add-const flag must match", bounded(0, 9, 0xf, true, 1|AddConstID), bounded(0, 9, 0xf, false, 2), NotExact, false},
		{"add-const with same delta", func() Reg { r := bounded(0, 9, 0xf, true, 1|AddConstID); r.Off = 4; return r }(),
			func() Reg { r := bounded(0, 9, 0xf, false, 2|AddConstID); r.Off = 4; return r }(), NotExact, true},
		{"32-bit and 64-bit links differ", func() Reg { r := bounded(0, 9, 0xf, true, 1|AddConst64ID); r.Off = 4; return r }(),
			func() Reg { r := bounded(0, 9, 0xf, false, 2|AddConst32ID); r.Off = 4; return r }(), NotExact, false},
		{"old without id accepts a linked cur", bounded(0, 9, 0xf, true, 0),
			func() Reg { r := bounded(0, 9, 0xf, false, 2|AddConst64ID); r.Off = -4; return r }(), NotExact, true},
		{"add-const with other delta", func() Reg { r := bounded(0, 9, 0xf, true, 1|AddConstID); r.Off = 4; return r }(),
			func() Reg { r := bounded(0, 9, 0xf, false, 2|AddConstID); r.Off = 5; return r }(), NotExact, false},

		// Types must match exactly, flags included.
		{"scalar vs pointer", unknown(), ptr(PtrToCtx, 0, nil), NotExact, false},
		{"pointer vs scalar", ptr(PtrToCtx, 0, nil), unknown(), NotExact, false},
		{"map_value_or_null vs map_value", ptr(PtrToMapValue, MaybeNull, nil), mapValue(0, 0), NotExact, false},
		{"map_value vs map_value_or_null", mapValue(0, 0), ptr(PtrToMapValue, MaybeNull, nil), NotExact, false},
		{"rdonly mem vs mem", ptr(PtrToMem, MemRdonly, nil), ptr(PtrToMem, 0, nil), NotExact, false},

		// Map values: same map and offset, variable part nests.
		{"map_value same", mapValue(1, 8), mapValue(1, 8), NotExact, true},
		{"map_value other map", mapValue(1, 8), mapValue(2, 8), NotExact, false},
		{"map_value other offset", mapValue(1, 8), mapValue(1, 16), NotExact, false},
		{"map_value of another inner map (map_uid)", ptr(PtrToMapValue, 0, func(r *Reg) { r.Aux = 1; r.SetMapUID(3) }),
			ptr(PtrToMapValue, 0, func(r *Reg) { r.Aux = 1; r.SetMapUID(4) }), NotExact, false},
		{"inner map of another lookup (map_uid)", ptr(ConstPtrToMap, 0, func(r *Reg) { r.Aux = 1; r.SetMapUID(3) }),
			ptr(ConstPtrToMap, 0, func(r *Reg) { r.Aux = 1; r.SetMapUID(4) }), NotExact, false},
		{"inner map of the same lookup", ptr(ConstPtrToMap, 0, func(r *Reg) { r.Aux = 1; r.SetMapUID(3) }),
			ptr(ConstPtrToMap, 0, func(r *Reg) { r.Aux = 1; r.SetMapUID(3) }), NotExact, true},
		{"map_value var offset nests", withVar(mapValue(1, 0), smallRange(0, 63, 0x3f)), withVar(mapValue(1, 0), smallRange(0, 7, 0x7)), NotExact, true},
		{"map_value var offset escapes", withVar(mapValue(1, 0), smallRange(0, 7, 0x7)), withVar(mapValue(1, 0), smallRange(0, 63, 0x3f)), NotExact, false},
		{"map_value id presence must match", ptr(PtrToMapValue, MaybeNull, nil),
			ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.ID = 3 }), NotExact, false},
		{"mem sizes differ", ptr(PtrToMem, 0, func(r *Reg) { r.Range = 8 }), ptr(PtrToMem, 0, func(r *Reg) { r.Range = 16 }), NotExact, false},
		// Slice buffers compare exactly: neither a covering buffer nor
		// none stands for another.
		{"same slice buffer", slice(-32, 8), slice(-32, 8), NotExact, true},
		{"covering slice buffer", slice(-40, 16), slice(-32, 8), NotExact, false},
		{"old buffer, cur none", slice(-32, 8), ptr(PtrToMem, MemRdonly, func(r *Reg) { r.Range = 8 }), NotExact, false},
		{"old none, cur buffer", ptr(PtrToMem, MemRdonly, func(r *Reg) { r.Range = 8 }), slice(-32, 8), NotExact, false},
		{"buffer in another frame", slice(-32, 8), func() Reg { r := slice(-32, 8); r.Buf.Frame = 1; return r }(), NotExact, false},

		// Packets: cur needs at least old's checked range.
		{"pkt more range", pkt(0, 14, 0), pkt(0, 20, 0), NotExact, true},
		{"pkt less range", pkt(0, 20, 0), pkt(0, 14, 0), NotExact, false},
		{"pkt other offset", pkt(4, 14, 0), pkt(8, 14, 0), NotExact, false},
		// AT_PKT_END (-1) and BEYOND_PKT_END (-2) only cover themselves.
		{"pkt beyond end vs unchecked", pkt(0, -2, 0), pkt(0, 0, 0), NotExact, false},
		{"pkt beyond end vs at end", pkt(0, -2, 0), pkt(0, -1, 0), NotExact, false},
		{"pkt at end vs beyond end", pkt(0, -1, 0), pkt(0, -2, 0), NotExact, false},
		{"pkt unchecked vs beyond end", pkt(0, 0, 0), pkt(0, -2, 0), NotExact, false},
		{"pkt beyond end vs itself", pkt(0, -2, 0), pkt(0, -2, 0), NotExact, true},
		{"pkt ids map", pkt(0, 14, 2), pkt(0, 14, 5), NotExact, true},
		{"pkt id vs none", pkt(0, 14, 2), pkt(0, 14, 0), NotExact, false},
		{"pkt var offset escapes", withVar(pkt(0, 14, 1), smallRange(0, 15, 0xf)), withVar(pkt(0, 14, 1), smallRange(0, 255, 0xff)), NotExact, false},
		{"pkt const var offset within", withVar(pkt(0, 14, 1), smallRange(0, 255, 0xff)), withVar(pkt(0, 14, 1), smallRange(4, 4, 0)), NotExact, true},
		{"pkt var offset within", withVar(pkt(0, 14, 1), smallRange(0, 255, 0xff)), withVar(pkt(0, 14, 1), smallRange(0, 15, 0xf)), NotExact, true},

		// Stack pointers: exact, same frame.
		{"fp same", stackPtr(-8, 0), stackPtr(-8, 0), NotExact, true},
		{"fp other offset", stackPtr(-8, 0), stackPtr(-16, 0), NotExact, false},
		{"fp other frame", stackPtr(-8, 0), stackPtr(-8, 1), NotExact, false},

		// Everything else: exact.
		{"ctx same", ptr(PtrToCtx, 0, nil), ptr(PtrToCtx, 0, nil), NotExact, true},
		{"ctx other offset", ptr(PtrToCtx, 0, nil), ptr(PtrToCtx, 0, func(r *Reg) { r.Off = 4 }), NotExact, false},
		{"socket references map", ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 2 }), ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 7 }), NotExact, true},
		{"socket reference vs none", ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 2 }), ptr(PtrToSocket, 0, nil), NotExact, false},
		{"arena always", ptr(PtrToArena, 0, nil), withVar(ptr(PtrToArena, 0, nil), UnknownScalar()), NotExact, true},

		// Exact mode: field equality up to id renaming.
		{"exact: imprecise is still compared", konst(5, false), konst(6, false), Exact, false},
		{"exact: wider old is different", bounded(0, 255, 0xff, false, 0), bounded(0, 10, 0xf, false, 0), Exact, false},
		{"exact: identical", bounded(0, 255, 0xff, false, 4), bounded(0, 255, 0xff, true, 9), Exact, true},
		{"exact: scalar ids use plain check", konst(1, false), func() Reg { r := konst(1, false); r.ID = 2; return r }(), Exact, false},
		{"exact: not init vs not init", notInit(), notInit(), Exact, true},
		{"exact: not init vs scalar", notInit(), unknown(), Exact, false},
	}
	var env EqualEnv
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, cur := tt.old, tt.cur
			if got := env.RegSafe(&old, &cur, tt.mode); got != tt.want {
				t.Errorf("RegSafe(%v, %v, %d) = %v, want %v", tt.old, tt.cur, tt.mode, got, tt.want)
			}
		})
	}
}

// TestRegSafePktMarksAsRanges: kernels without the regsafe fix for packet
// pointers order the AT_PKT_END/BEYOND_PKT_END marks below every range.
func TestRegSafePktMarksAsRanges(t *testing.T) {
	tests := []struct {
		name     string
		old, cur Reg
		want     bool
	}{
		{"beyond end covers unchecked", pkt(0, -2, 0), pkt(0, 0, 0), true},
		{"beyond end covers at end", pkt(0, -2, 0), pkt(0, -1, 0), true},
		{"at end does not cover beyond end", pkt(0, -1, 0), pkt(0, -2, 0), false},
		{"unchecked does not cover beyond end", pkt(0, 0, 0), pkt(0, -2, 0), false},
		{"ranges as before", pkt(0, 14, 0), pkt(0, 20, 0), true},
	}
	env := EqualEnv{PktMarksAsRanges: true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, cur := tt.old, tt.cur
			if got := env.RegSafe(&old, &cur, NotExact); got != tt.want {
				t.Errorf("RegSafe(%v, %v) = %v, want %v", tt.old, tt.cur, got, tt.want)
			}
		})
	}
}

// pair builds two one-frame states at insn 10 whose registers and stacks are
// set by edit.
func pair(edit func(old, cur *State)) (*State, *State) {
	old, cur := NewState(), NewState()
	old.InsnIdx, cur.InsnIdx = 10, 10
	for _, s := range []*State{old, cur} {
		s.Frames[0].Regs()[1].MarkPtr(PtrToCtx, 0)
	}
	if edit != nil {
		edit(old, cur)
	}
	return old, cur
}

// slotOf fills slot spi (growing the stack) with 8 bytes of kind t.
func slotOf(f *Frame, spi int, t SlotType) *Slot {
	f.GrowStack((spi + 1) * SlotSize)
	s := f.Slot(spi)
	for i := range s.Types {
		s.Types[i] = t
	}
	return s
}

// spillTo spills r with a full 8-byte store into slot spi.
func spillTo(f *Frame, spi int, r Reg) {
	slotOf(f, spi, StackSpill).Spilled = r
}

func TestStatesEqual(t *testing.T) {
	reg := func(s *State, i int, r Reg) { s.Frames[0].Regs()[i] = r }
	tests := []struct {
		name   string
		edit   func(old, cur *State)
		mode   ExactMode
		unpriv bool
		live   uint16 // 0: all live
		want   bool
	}{
		{"identical", nil, NotExact, false, 0, true},
		{"identical exact", nil, Exact, false, 0, true},
		{"identical range-within", nil, RangeWithin, false, 0, true},

		// Ids across registers: a bijection old → cur.
		{"linked in old, linked in cur", func(o, c *State) {
			reg(o, 6, bounded(0, 9, 0xf, true, 1))
			reg(o, 7, bounded(0, 9, 0xf, true, 1))
			reg(c, 6, bounded(0, 9, 0xf, false, 5))
			reg(c, 7, bounded(0, 9, 0xf, false, 5))
		}, NotExact, false, 0, true},
		{"linked in old, split in cur", func(o, c *State) {
			reg(o, 6, bounded(0, 9, 0xf, true, 1))
			reg(o, 7, bounded(0, 9, 0xf, true, 1))
			reg(c, 6, bounded(0, 9, 0xf, false, 5))
			reg(c, 7, bounded(0, 9, 0xf, false, 6))
		}, NotExact, false, 0, false},
		{"split in old, linked in cur", func(o, c *State) {
			reg(o, 6, bounded(0, 9, 0xf, true, 1))
			reg(o, 7, bounded(0, 9, 0xf, true, 2))
			reg(c, 6, bounded(0, 9, 0xf, false, 5))
			reg(c, 7, bounded(0, 9, 0xf, false, 5))
		}, NotExact, false, 0, false},
		// 6.18 stable (6.18.44, the live kernel) accepts any cur id for
		// an old zero id: old relied on no link, so a link in cur only
		// adds knowledge (6.18.0 gave each zero a temporary id instead).
		{"unlinked in old, linked in cur", func(o, c *State) {
			reg(o, 6, bounded(0, 9, 0xf, true, 0))
			reg(o, 7, bounded(0, 9, 0xf, true, 0))
			reg(c, 6, bounded(0, 9, 0xf, false, 5))
			reg(c, 7, bounded(0, 9, 0xf, false, 5))
		}, NotExact, false, 0, true},
		// A cur zero id still becomes a temporary id: two registers
		// linked in old cannot match two unlinked ones in cur.
		{"linked in old, unlinked in cur", func(o, c *State) {
			reg(o, 6, bounded(0, 9, 0xf, true, 5))
			reg(o, 7, bounded(0, 9, 0xf, true, 5))
			reg(c, 6, bounded(0, 9, 0xf, false, 0))
			reg(c, 7, bounded(0, 9, 0xf, false, 0))
		}, NotExact, false, 0, false},
		{"one unlinked in old, linked pair in cur", func(o, c *State) {
			reg(o, 6, bounded(0, 9, 0xf, true, 0))
			reg(o, 7, bounded(0, 9, 0xf, false, 0))
			reg(c, 6, bounded(0, 9, 0xf, false, 5))
			reg(c, 7, bounded(0, 9, 0xf, false, 5))
		}, NotExact, false, 0, true},
		{"imprecise linked scalars are not compared", func(o, c *State) {
			reg(o, 6, bounded(0, 9, 0xf, false, 1))
			reg(o, 7, bounded(0, 9, 0xf, false, 1))
			reg(c, 6, unknown())
			reg(c, 7, unknown())
		}, NotExact, false, 0, true},
		{"maybe-null pointers of one lookup must stay one group", func(o, c *State) {
			reg(o, 6, ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.ID = 1 }))
			reg(o, 7, ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.ID = 1 }))
			reg(c, 6, ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.ID = 3 }))
			reg(c, 7, ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.ID = 4 }))
		}, NotExact, false, 0, false},

		// Liveness.
		{"dead register differs", func(o, c *State) {
			reg(o, 5, konst(1, true))
			reg(c, 5, konst(2, false))
		}, NotExact, false, 1<<1 | 1<<RegFP, true},
		{"live register differs", func(o, c *State) {
			reg(o, 5, konst(1, true))
			reg(c, 5, konst(2, false))
		}, NotExact, false, 1<<1 | 1<<5 | 1<<RegFP, false},

		// State-level fields.
		{"speculative old never prunes real cur", func(o, c *State) { o.Speculative = true }, NotExact, false, 0, false},
		{"real old prunes speculative cur", func(o, c *State) { c.Speculative = true }, NotExact, false, 0, true},
		{"sleepable differs", func(o, c *State) { c.InSleepable = true }, NotExact, false, 0, false},
		{"reference count differs", func(o, c *State) { c.Refs = []Ref{{ID: 3}} }, NotExact, false, 0, false},
		{"references map through ids", func(o, c *State) {
			o.Refs = []Ref{{ID: 3}}
			c.Refs = []Ref{{ID: 8}}
			reg(o, 6, ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 3 }))
			reg(c, 6, ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 8 }))
		}, NotExact, false, 0, true},
		{"register holds another reference", func(o, c *State) {
			o.Refs = []Ref{{ID: 3}, {ID: 4}}
			c.Refs = []Ref{{ID: 8}, {ID: 9}}
			reg(o, 6, ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 3 }))
			reg(c, 6, ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 9 }))
		}, NotExact, false, 0, false},
		{"reference kinds differ", func(o, c *State) {
			o.Refs = []Ref{{ID: 3, Kind: 1}}
			c.Refs = []Ref{{ID: 3, Kind: 2}}
		}, NotExact, false, 0, false},
		{"locks differ", func(o, c *State) { o.ActiveLocks = 1 }, NotExact, false, 0, false},
		{"same lock through renamed ids", func(o, c *State) {
			o.ActiveLocks, c.ActiveLocks = 1, 1
			o.ActiveLockID, o.ActiveLockPtr = 5, 2
			c.ActiveLockID, c.ActiveLockPtr = 9, 2
			o.Refs = []Ref{{ID: 5, Kind: RefKindLock, Ptr: 2}}
			c.Refs = []Ref{{ID: 9, Kind: RefKindLock, Ptr: 2}}
		}, NotExact, false, 0, true},
		{"lock in another map", func(o, c *State) {
			o.ActiveLocks, c.ActiveLocks = 1, 1
			o.ActiveLockID, o.ActiveLockPtr = 5, 2
			c.ActiveLockID, c.ActiveLockPtr = 5, 3
			o.Refs = []Ref{{ID: 5, Kind: RefKindLock, Ptr: 2}}
			c.Refs = []Ref{{ID: 5, Kind: RefKindLock, Ptr: 3}}
		}, NotExact, false, 0, false},
		{"lock id held by a register differs", func(o, c *State) {
			o.ActiveLocks, c.ActiveLocks = 1, 1
			o.ActiveLockID, o.ActiveLockPtr = 5, 2
			c.ActiveLockID, c.ActiveLockPtr = 9, 2
			o.Refs = []Ref{{ID: 5, Kind: RefKindLock, Ptr: 2}}
			c.Refs = []Ref{{ID: 9, Kind: RefKindLock, Ptr: 2}}
			reg(o, 6, ptr(PtrToMapValue, 0, func(r *Reg) { r.ID = 5 }))
			reg(c, 6, ptr(PtrToMapValue, 0, func(r *Reg) { r.ID = 7 }))
		}, NotExact, false, 0, false},
		{"rcu differs", func(o, c *State) { c.ActiveRCU = true }, NotExact, false, 0, false},
		{"callback deeper in old", func(o, c *State) { o.Frames[0].CallbackDepth = 2; c.Frames[0].CallbackDepth = 1 }, NotExact, false, 0, false},
		{"callback deeper in cur", func(o, c *State) { o.Frames[0].CallbackDepth = 1; c.Frames[0].CallbackDepth = 2 }, NotExact, false, 0, true},

		// Stack bytes.
		{"old invalid ignores cur", func(o, c *State) {
			o.Frames[0].GrowStack(8)
			slotOf(c.Frames[0], 0, StackMisc)
		}, NotExact, false, 0, true},
		{"old misc vs cur invalid, privileged", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackMisc)
			c.Frames[0].GrowStack(8)
		}, NotExact, false, 0, true},
		{"old misc vs cur invalid, unprivileged", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackMisc)
			c.Frames[0].GrowStack(8)
		}, NotExact, true, 0, false},
		{"old misc vs cur zero, unprivileged", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackMisc)
			slotOf(c.Frames[0], 0, StackZero)
		}, NotExact, true, 0, true},
		{"old zero vs cur misc", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackZero)
			slotOf(c.Frames[0], 0, StackMisc)
		}, NotExact, false, 0, false},
		{"old zero vs cur shorter stack", func(o, c *State) {
			slotOf(o.Frames[0], 1, StackZero)
			slotOf(c.Frames[0], 0, StackZero)
		}, NotExact, false, 0, false},
		{"old longer but unused", func(o, c *State) {
			o.Frames[0].GrowStack(64)
			slotOf(o.Frames[0], 0, StackZero)
			slotOf(c.Frames[0], 0, StackZero)
		}, NotExact, false, 0, true},
		{"spilled precise consts equal", func(o, c *State) {
			spillTo(o.Frames[0], 0, konst(5, true))
			spillTo(c.Frames[0], 0, konst(5, false))
		}, NotExact, false, 0, true},
		{"spilled precise consts differ", func(o, c *State) {
			spillTo(o.Frames[0], 0, konst(5, true))
			spillTo(c.Frames[0], 0, konst(6, false))
		}, NotExact, false, 0, false},
		{"spilled imprecise consts differ", func(o, c *State) {
			spillTo(o.Frames[0], 0, konst(5, false))
			spillTo(c.Frames[0], 0, konst(6, false))
		}, NotExact, false, 0, true},
		{"spilled imprecise scalar vs cur misc", func(o, c *State) {
			spillTo(o.Frames[0], 0, konst(5, false))
			slotOf(c.Frames[0], 0, StackMisc)
		}, NotExact, false, 0, true},
		{"spilled precise scalar vs cur misc", func(o, c *State) {
			spillTo(o.Frames[0], 0, konst(5, true))
			slotOf(c.Frames[0], 0, StackMisc)
		}, NotExact, false, 0, false},
		{"spilled imprecise scalar vs cur misc, range-within", func(o, c *State) {
			spillTo(o.Frames[0], 0, konst(5, false))
			slotOf(c.Frames[0], 0, StackMisc)
		}, RangeWithin, false, 0, false},
		{"old misc vs cur spilled scalar, unprivileged", func(o, c *State) {
			slotOf(o.Frames[0], 0, StackMisc)
			spillTo(c.Frames[0], 0, konst(5, false))
		}, NotExact, true, 0, true},
		{"spilled pointer vs cur misc", func(o, c *State) {
			spillTo(o.Frames[0], 0, ptr(PtrToCtx, 0, nil))
			slotOf(c.Frames[0], 0, StackMisc)
		}, NotExact, false, 0, false},
		{"spilled pointers equal", func(o, c *State) {
			spillTo(o.Frames[0], 0, stackPtr(-16, 0))
			spillTo(c.Frames[0], 0, stackPtr(-16, 0))
		}, NotExact, false, 0, true},
		{"spilled pointers differ", func(o, c *State) {
			spillTo(o.Frames[0], 0, stackPtr(-8, 0))
			spillTo(c.Frames[0], 0, stackPtr(-16, 0))
		}, NotExact, false, 0, false},
		{"spilled scalar ids link with registers", func(o, c *State) {
			spillTo(o.Frames[0], 0, bounded(0, 9, 0xf, true, 1))
			reg(o, 6, bounded(0, 9, 0xf, true, 1))
			spillTo(c.Frames[0], 0, bounded(0, 9, 0xf, false, 2))
			reg(c, 6, bounded(0, 9, 0xf, false, 3))
		}, NotExact, false, 0, false},
		{"iterator depth is ignored", func(o, c *State) {
			it := ptr(PtrToStack, 0, func(r *Reg) { r.Aux, r.Off, r.RefObjID = 77, 1, 4 })
			s := slotOf(o.Frames[0], 0, StackIter)
			s.Spilled = it
			s.Spilled.Range = 1
			s = slotOf(c.Frames[0], 0, StackIter)
			s.Spilled = it
			s.Spilled.Range = 5
			o.Refs = []Ref{{ID: 4}}
			c.Refs = []Ref{{ID: 4}}
		}, NotExact, false, 0, true},
		{"exact: slot kinds must match", func(o, c *State) {
			o.Frames[0].GrowStack(8)
			slotOf(c.Frames[0], 0, StackMisc)
		}, Exact, false, 0, false},
		{"exact: cur stack shorter", func(o, c *State) {
			o.Frames[0].GrowStack(8)
		}, Exact, false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, cur := pair(tt.edit)
			env := EqualEnv{Unprivileged: tt.unpriv}
			if tt.live != 0 {
				env.LiveRegs = func(int) uint16 { return tt.live }
			}
			if got := env.StatesEqual(old, cur, tt.mode); got != tt.want {
				t.Errorf("StatesEqual = %v, want %v\nold: %v\ncur: %v", got, tt.want, old, cur)
			}
		})
	}
}

func TestStatesEqualFrames(t *testing.T) {
	var env EqualEnv
	old, cur := realisticState(3, 8), realisticState(3, 8)
	if !env.StatesEqual(old, cur, NotExact) {
		t.Fatalf("equal 3-frame states do not match")
	}
	if !env.StatesEqual(old, cur, Exact) {
		t.Fatalf("equal 3-frame states do not match exactly")
	}
	if env.StatesEqual(old, realisticState(2, 8), NotExact) {
		t.Errorf("different depths match")
	}
	cur.Frames[1].CallSite++
	if env.StatesEqual(old, cur, NotExact) {
		t.Errorf("different call sites match")
	}

	// Each frame is checked with the liveness of its own instruction: the
	// call insn it waits on, or the current insn for the top frame.
	cur = realisticState(3, 8)
	cur.Frames[1].Regs()[6].MarkConst(1000) // precise in old, outside [0,255]
	var asked []int
	env.LiveRegs = func(insn int) uint16 {
		asked = append(asked, insn)
		if insn == 40 { // frame 1 waits on insn 40: r6 dead there
			return allRegsLive &^ (1 << 6)
		}
		return allRegsLive
	}
	if !env.StatesEqual(old, cur, NotExact) {
		t.Errorf("difference in a dead register of frame 1 blocks the match")
	}
	if diff := cmp.Diff([]int{20, 40, 100}, asked); diff != "" {
		t.Errorf("liveness queried at (-want +got):\n%s", diff)
	}
	env.LiveRegs = nil
	if env.StatesEqual(old, cur, NotExact) {
		t.Errorf("difference in a live register of frame 1 did not block the match")
	}
}

func TestStatesEqualIDMapIsPerCall(t *testing.T) {
	var env EqualEnv
	edit := func(id uint32) func(o, c *State) {
		return func(o, c *State) {
			o.Frames[0].Regs()[6] = bounded(0, 9, 0xf, true, 1)
			c.Frames[0].Regs()[6] = bounded(0, 9, 0xf, false, id)
		}
	}
	// 1 → 5 in the first call must not forbid 1 → 6 in the second.
	for _, id := range []uint32{5, 6} {
		old, cur := pair(edit(id))
		if !env.StatesEqual(old, cur, NotExact) {
			t.Errorf("StatesEqual with cur id %d = false, want true", id)
		}
	}
}

func TestStatesEqualAllocs(t *testing.T) {
	var env EqualEnv
	old, cur := realisticState(3, 64), realisticState(3, 64)
	env.StatesEqual(old, cur, NotExact)
	allocs := testing.AllocsPerRun(20, func() {
		if !env.StatesEqual(old, cur, NotExact) {
			t.Fatal("no match")
		}
	})
	if allocs != 0 {
		t.Errorf("StatesEqual allocated %v times per call, want 0", allocs)
	}
}

// nullOf is a maybe-NULL pointer of kind t to object aux (a map index),
// found NULL.
func nullOf(t RegType, aux uint32) Reg {
	var r Reg
	r.MarkPtr(t, MaybeNull)
	r.Aux, r.ID = aux, 7
	r.MarkNull()
	return r
}

func TestMaybeLooping(t *testing.T) {
	tests := []struct {
		name string
		edit func(old, cur *State)
		want bool
	}{
		{"identical", nil, true},
		{"precision differs", func(o, c *State) {
			o.Frames[0].Regs()[6] = konst(1, true)
			c.Frames[0].Regs()[6] = konst(1, false)
		}, true},
		{"value differs", func(o, c *State) {
			o.Frames[0].Regs()[6] = konst(1, false)
			c.Frames[0].Regs()[6] = konst(2, false)
		}, false},
		{"ids differ", func(o, c *State) {
			o.Frames[0].Regs()[6] = bounded(0, 9, 0xf, false, 1)
			c.Frames[0].Regs()[6] = bounded(0, 9, 0xf, false, 2)
		}, false},
		{"stack differs", func(o, c *State) { slotOf(c.Frames[0], 0, StackMisc) }, true},
		{"depth differs", func(o, c *State) { c.CurFrame = 1; c.Frames[1] = &Frame{} }, false},
		// mark_ptr_or_null_reg leaves the pointer's union in the NULL
		// scalar: NULLs of two maps' lookups differ byte-wise, NULLs of
		// one map's do not.
		{"NULLs of two maps", func(o, c *State) {
			o.Frames[0].Regs()[6] = nullOf(PtrToMapValue, 1)
			c.Frames[0].Regs()[6] = nullOf(PtrToMapValue, 2)
		}, false},
		{"NULLs of one map", func(o, c *State) {
			o.Frames[0].Regs()[6] = nullOf(PtrToMapValue, 1)
			c.Frames[0].Regs()[6] = nullOf(PtrToMapValue, 1)
		}, true},
		{"NULL and zero", func(o, c *State) {
			o.Frames[0].Regs()[6] = nullOf(PtrToMapValue, 1)
			c.Frames[0].Regs()[6] = konst(0, false)
		}, false},
	}
	for _, tt := range tests {
		old, cur := pair(tt.edit)
		if got := MaybeLooping(old, cur); got != tt.want {
			t.Errorf("%s: MaybeLooping = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Only the top frame counts.
	old, cur := realisticState(2, 0), realisticState(2, 0)
	cur.Frames[0].Regs()[6].MarkConst(3)
	if !MaybeLooping(old, cur) {
		t.Errorf("a difference below the top frame blocks MaybeLooping")
	}
}

// TestMaybeLoopingHint: against a stored (sealed, packed) checkpoint, the
// register tested first after a difference (loopHint) never changes the
// answer: each of a run of arrivals, differing from the checkpoint in
// random registers, gets the answer of a plain register-by-register walk.
func TestMaybeLoopingHint(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 1))
	var pool Pool
	plain := func(old, cur *State) bool {
		for i := range NumRegs {
			if !sameLoopReg(old.Cur().Reg(i), cur.Cur().Reg(i)) {
				return false
			}
		}
		return true
	}
	hinted, same := 0, 0
	for range 500 {
		base := NewState()
		for i := range 10 {
			base.Frames[0].Regs()[i] = konst(uint64(r.IntN(3)), false)
		}
		old := pool.Checkpoint(base)
		for range 20 {
			cur := pool.Clone(base)
			for range r.IntN(3) {
				cur.Frames[0].Regs()[r.IntN(10)] = konst(uint64(r.IntN(3)), false)
			}
			if old.Cur().sum.loopHint != 0 {
				hinted++
			}
			want := plain(old, cur)
			if want {
				same++
			}
			if got := MaybeLooping(old, cur); got != want {
				t.Fatalf("MaybeLooping = %v with loopHint %d, a plain walk says %v", got, old.Cur().sum.loopHint, want)
			}
		}
	}
	if hinted == 0 || same == 0 {
		t.Fatalf("the test never exercised both answers with a hint: %d hinted, %d equal", hinted, same)
	}
}

func TestSlotWordPredicates(t *testing.T) {
	plain := func(s *Slot) bool {
		for _, k := range s.Types {
			if k != StackInvalid && k != StackMisc && k != StackZero {
				return false
			}
		}
		return true
	}
	unread := func(s *Slot, allowUninit bool) bool {
		for _, k := range s.Types {
			if k != StackInvalid && !(allowUninit && k == StackMisc) {
				return false
			}
		}
		return true
	}
	kinds := func(o, c *Slot) bool {
		for i, k := range o.Types {
			if k != StackInvalid && k != StackMisc && k != c.Types[i] {
				return false
			}
		}
		return true
	}
	// Each slot is also matched against a few current slots, by
	// kindsMatch: itself, every byte MISC, and its bytes rotated.
	var misc, rot Slot
	for i := range misc.Types {
		misc.Types[i] = StackMisc
	}
	check := func(s *Slot) {
		t.Helper()
		if isPlain(s) != plain(s) || isUnread(s, true) != unread(s, true) || isUnread(s, false) != unread(s, false) {
			t.Fatalf("word predicates disagree on %v", s.Types)
		}
		for i := range rot.Types {
			rot.Types[i] = s.Types[(i+1)%SlotSize]
		}
		for _, c := range []*Slot{s, &misc, &rot, {}} {
			if kindsMatch(slotWord(s), slotWord(c)) != kinds(s, c) {
				t.Fatalf("kindsMatch(%v, %v) = %v", s.Types, c.Types, !kinds(s, c))
			}
		}
	}
	// Every slot made of the four basic kinds, then every object kind at
	// every position.
	const basic = 4
	var s Slot
	for n := 0; n < basic*basic*basic*basic*basic*basic*basic*basic; n++ {
		for i, v := 0, n; i < SlotSize; i, v = i+1, v/basic {
			s.Types[i] = SlotType(v % basic)
		}
		check(&s)
	}
	for k := StackDynptr; k <= StackIRQFlag+1; k++ {
		for i := range SlotSize {
			s = Slot{}
			s.Types[i] = k
			check(&s)
			for j := range s.Types {
				s.Types[j] = StackMisc
			}
			s.Types[i] = k
			check(&s)
		}
	}
}

// TestLivenessPastR10: liveness may name register numbers past r10 (an
// instruction that names one is refused only when the search reaches it);
// a comparison looks at r0-r10 only, and never past the register file.
func TestLivenessPastR10(t *testing.T) {
	var env EqualEnv
	env.LiveRegs = func(int) uint16 { return ^uint16(0) }
	old, cur := realisticState(1, 8), realisticState(1, 8)
	if !env.StatesEqual(old, cur, NotExact) {
		t.Errorf("equal states do not match")
	}
	cur.Frames[0].Regs()[6].MarkConst(1000)
	if env.StatesEqual(old, cur, NotExact) {
		t.Errorf("a different live register matches")
	}
}

// slice is a read-only dynptr slice of 8 bytes whose stack buffer in frame
// 0 may cover size bytes from off.
func slice(off int16, size uint16) Reg {
	return ptr(PtrToMem, MemRdonly, func(r *Reg) {
		r.Range = 8
		r.Buf = StackBuf{Off: off, Size: size}
	})
}

func TestStackBufOverlaps(t *testing.T) {
	buf := StackBuf{Off: -37, Size: 5, Frame: 1}
	tests := []struct {
		name          string
		frame, lo, hi int
		want          bool
	}{
		{"first byte", 1, -37, -36, true},
		{"last byte", 1, -33, -32, true},
		{"byte before", 1, -38, -37, false},
		{"byte after", 1, -32, -31, false},
		{"covering write", 1, -40, -24, true},
		{"other frame", 0, -37, -32, false},
		{"whole frame", 1, -MaxStack, 0, true},
	}
	for _, tt := range tests {
		if got := buf.Overlaps(tt.frame, tt.lo, tt.hi); got != tt.want {
			t.Errorf("%s: Overlaps(%d, %d, %d) = %v, want %v", tt.name, tt.frame, tt.lo, tt.hi, got, tt.want)
		}
	}
	if (StackBuf{}).Overlaps(0, -MaxStack, 0) {
		t.Error("the zero StackBuf overlaps the stack")
	}
}
