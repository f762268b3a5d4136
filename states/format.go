package states

import (
	"math"
	"strconv"
)

// Rendering of registers and states in the kernel 6.18 log format
// (kernel/bpf/log.c print_reg_state and print_verifier_state):
//
//	R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))
//	R1=ctx() R2=P42 R3=map_value(map=counts,ks=4,vs=8) R10=fp0 fp-8=mmmmmmmm

// Numbers whose magnitude is small print in decimal, larger ones in hex, so
// that addresses and masks stay readable (the kernel's is_unum_decimal and
// is_snum_decimal).
const (
	maxDecimalUnsigned = math.MaxUint16
	minDecimalSigned   = math.MinInt16
	maxDecimalSigned   = math.MaxInt16
)

// MapInfo describes the map behind a map pointer, for the log.
type MapInfo struct {
	Name               string
	KeySize, ValueSize uint32
}

// Printer renders registers and states. Its lookups are optional: without
// Map, map pointers print without "map=", "ks=" and "vs="; without BTFName,
// BTF pointers print as "ptr_".
type Printer struct {
	// Map returns the map with index aux (Reg.Aux of a map pointer).
	Map func(aux uint32) (MapInfo, bool)
	// OuterMap returns the map of maps whose lookups yield inner map aux:
	// an unchecked lookup prints as a value of the outer map, as the
	// kernel types it until the NULL check.
	OuterMap func(aux uint32) (MapInfo, bool)
	// BTFName returns the name of the BTF type id (Reg.Aux of a
	// PtrToBTFID, of an iterator's slots).
	BTFName func(id uint32) string
	// DynptrType returns the name of a dynptr type (Reg.Aux of a
	// dynptr's slots): "local", "ringbuf". Without it, dynptr slots print
	// as their byte kinds.
	DynptrType func(aux uint32) string
}

// regTypeNames are the kernel's base type names (reg_type_str).
var regTypeNames = [numRegTypes]string{
	NotInit:          "?",
	ScalarValue:      "scalar",
	PtrToCtx:         "ctx",
	ConstPtrToMap:    "map_ptr",
	PtrToMapValue:    "map_value",
	PtrToMapKey:      "map_key",
	PtrToStack:       "fp",
	PtrToPacketMeta:  "pkt_meta",
	PtrToPacket:      "pkt",
	PtrToPacketEnd:   "pkt_end",
	PtrToFlowKeys:    "flow_keys",
	PtrToSocket:      "sock",
	PtrToSockCommon:  "sock_common",
	PtrToTCPSock:     "tcp_sock",
	PtrToTPBuffer:    "tp_buffer",
	PtrToXDPSock:     "xdp_sock",
	PtrToBTFID:       "ptr_",
	PtrToMem:         "mem",
	PtrToBuf:         "buf",
	PtrToFunc:        "func",
	PtrToArena:       "arena",
	ConstPtrToDynptr: "dynptr_ptr",
}

// flagPrefixes are the flags printed before the base name, in the kernel's
// order.
var flagPrefixes = [...]struct {
	flag RegFlags
	name string
}{
	{MemRdonly, "rdonly_"},
	{MemRingbuf, "ringbuf_"},
	{MemUser, "user_"},
	{MemPercpu, "percpu_"},
	{MemRCU, "rcu_"},
	{PtrUntrusted, "untrusted_"},
	{PtrTrusted, "trusted_"},
}

// slotChars are the log characters of stack byte kinds.
var slotChars = [...]byte{
	StackInvalid: '?',
	StackSpill:   'r',
	StackMisc:    'm',
	StackZero:    '0',
	StackDynptr:  'd',
	StackIter:    'i',
	StackIRQFlag: 'f',
}

// String returns the name of the register kind as the log prints it.
func (t RegType) String() string {
	if t >= numRegTypes {
		return "unknown"
	}
	return regTypeNames[t]
}

// String returns the log character of a stack byte kind.
func (t SlotType) String() string {
	if int(t) >= len(slotChars) {
		return "?"
	}
	return string(slotChars[t])
}

// AppendType appends the full type name of a register kind with flags, as
// the kernel's reg_type_str: "map_value_or_null", "rdonly_mem".
func AppendType(b []byte, t RegType, flags RegFlags) []byte {
	for _, p := range flagPrefixes {
		if flags&p.flag != 0 {
			b = append(b, p.name...)
		}
	}
	if t == ConstPtrToMap && flags&OuterMapValue != 0 {
		// An unchecked lookup in a map of maps, which 6.18.0 still
		// types as a map value until the NULL check turns it into the
		// inner map.
		b = append(b, PtrToMapValue.String()...)
	} else {
		b = append(b, t.String()...)
	}
	if flags&MaybeNull != 0 {
		if t == PtrToBTFID {
			b = append(b, "or_null_"...)
		} else {
			b = append(b, "_or_null"...)
		}
	}
	return b
}

// appendUnum appends an unsigned number, in decimal when small.
func appendUnum(b []byte, v uint64) []byte {
	if v <= maxDecimalUnsigned {
		return strconv.AppendUint(b, v, 10)
	}
	return appendHex(b, v)
}

// appendSnum appends a signed number, in decimal when small, otherwise as
// the hex of its 64-bit pattern.
func appendSnum(b []byte, v int64) []byte {
	if v >= minDecimalSigned && v <= maxDecimalSigned {
		return strconv.AppendInt(b, v, 10)
	}
	return appendHex(b, uint64(v))
}

// appendHex appends v as the kernel's "%#llx" does ("0x0" for zero).
func appendHex(b []byte, v uint64) []byte {
	return strconv.AppendUint(append(b, "0x"...), v, 16)
}

// appendTnum appends a tnum as "(value; mask)" in hex.
func appendTnum(b []byte, t Tnum) []byte {
	b = appendHex(append(b, '('), t.Value)
	b = appendHex(append(b, "; "...), t.Mask)
	return append(b, ')')
}

// rangeEntry is one bound in the scalar range list.
type rangeEntry struct {
	name   string
	val    uint64
	signed bool
	omit   bool
}

// appendRanges appends the bounds that say something (not the type's
// extremes), merging names with equal values: "smin=smin32=0,smax=umax=255"
// (print_scalar_ranges). sep is the separator before the first entry.
func appendRanges(b []byte, s *Scalar, sep string) ([]byte, string) {
	// A 32-bit signed bound prints sign-extended only if it prints in
	// decimal; in hex it keeps its 32-bit pattern, so that it does not look
	// like a different 64-bit number.
	s32 := func(v int32) uint64 {
		if v >= minDecimalSigned && v <= maxDecimalSigned {
			return uint64(int64(v))
		}
		return uint64(uint32(v))
	}
	e := [...]rangeEntry{
		{"smin", uint64(s.SMin), true, s.SMin == math.MinInt64},
		{"smax", uint64(s.SMax), true, s.SMax == math.MaxInt64},
		{"umin", s.UMin, false, s.UMin == 0},
		{"umax", s.UMax, false, s.UMax == math.MaxUint64},
		{"smin32", s32(s.S32Min), true, s.S32Min == math.MinInt32},
		{"smax32", s32(s.S32Max), true, s.S32Max == math.MaxInt32},
		{"umin32", uint64(s.U32Min), false, s.U32Min == 0},
		{"umax32", uint64(s.U32Max), false, s.U32Max == math.MaxUint32},
	}
	for i := range e {
		if e[i].omit {
			continue
		}
		neg := e[i].signed && int64(e[i].val) < 0
		b = append(append(append(b, sep...), e[i].name...), '=')
		sep = ","
		// Minimums merge with minimums and maximums with maximums: same
		// parity in the list.
		for j := i + 2; j < len(e); j += 2 {
			if e[j].omit || e[j].val != e[i].val {
				continue
			}
			if (e[j].signed && int64(e[j].val) < 0) != neg {
				continue
			}
			e[j].omit = true
			b = append(append(b, e[j].name...), '=')
		}
		if e[i].signed {
			b = appendSnum(b, int64(e[i].val))
		} else {
			b = appendUnum(b, e[i].val)
		}
	}
	return b, sep
}

// AppendReg appends r in the log's form. frameNo is the frame the register
// is printed in; a stack pointer into another frame gets a "[n]" marker.
func (p *Printer) AppendReg(b []byte, r *Reg, frameNo int32) []byte {
	if r.Type == ScalarValue && r.Precise() {
		b = append(b, 'P')
	}
	if r.Type == ScalarValue && r.Var.IsConst() {
		return appendSnum(b, int64(r.Var.Value))
	}
	b = AppendType(b, r.Type, r.Flags)
	switch r.Type {
	case NotInit, PtrToArena:
		return b
	case PtrToStack:
		if int32(r.FrameNo()) != frameNo {
			b = strconv.AppendInt(append(b, '['), int64(r.FrameNo()), 10)
			b = append(b, ']')
		}
		if r.Var.IsConst() {
			return appendSnum(b, int64(r.Var.Value)+int64(r.Off))
		}
	case PtrToBTFID:
		if p.BTFName != nil {
			b = append(b, p.BTFName(r.Aux)...)
		}
	}
	b = append(b, '(')
	sep := ""
	if r.ID != 0 {
		b = strconv.AppendUint(append(b, "id="...), uint64(r.ID&^AddConstID), 10)
		sep = ","
	}
	if r.ID&AddConstID != 0 {
		if r.Off >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(r.Off), 10)
	}
	if r.RefObjID != 0 {
		b = strconv.AppendUint(append(append(b, sep...), "ref_obj_id="...), uint64(r.RefObjID), 10)
		sep = ","
	}
	if r.Type == PtrToBTFID && r.Flags&MemAlloc != 0 && r.Flags&NonOwnRef != 0 {
		// type_is_non_owning_ref: a graph node the path's lock keeps.
		b = append(append(b, sep...), "non_own_ref"...)
		sep = ","
	}
	if r.Type == ConstPtrToMap || r.Type == PtrToMapKey || r.Type == PtrToMapValue {
		lookup := p.Map
		if r.Type == ConstPtrToMap && r.Flags&OuterMapValue != 0 && p.OuterMap != nil {
			lookup = p.OuterMap
		}
		if lookup != nil {
			if m, ok := lookup(r.Aux); ok {
				if m.Name != "" {
					b = append(append(append(b, sep...), "map="...), m.Name...)
					sep = ","
				}
				b = strconv.AppendUint(append(append(b, sep...), "ks="...), uint64(m.KeySize), 10)
				b = strconv.AppendUint(append(b, ",vs="...), uint64(m.ValueSize), 10)
				sep = ","
			}
		}
	}
	if r.Type != ScalarValue && r.Off != 0 {
		b = appendSnum(append(append(b, sep...), "off="...), int64(r.Off))
		sep = ","
	}
	if r.IsPktPointer() {
		// The kernel's range is a signed int printed as u64: the
		// AT_PKT_END/BEYOND_PKT_END marks sign-extend.
		b = appendUnum(append(append(b, sep...), "r="...), uint64(int64(r.Range)))
		sep = ","
	}
	if r.Type == PtrToMem {
		b = appendUnum(append(append(b, sep...), "sz="...), uint64(uint32(r.Range)))
		sep = ","
		if r.Buf.Size != 0 {
			b = strconv.AppendInt(append(b, ",buf=fp["...), int64(r.Buf.Frame), 10)
			b = strconv.AppendInt(append(b, ']'), int64(r.Buf.Off), 10)
			b = strconv.AppendUint(append(b, '+'), uint64(r.Buf.Size), 10)
		}
	}
	if r.Type == ConstPtrToDynptr && p.DynptrType != nil {
		b = append(append(append(b, sep...), "type="...), p.DynptrType(r.Aux)...)
		sep = ","
	}
	if r.Var.IsConst() {
		// A pointer with a fixed offset.
		if r.Var.Value != 0 {
			b = appendSnum(append(append(b, sep...), "imm="...), int64(r.Var.Value))
		}
	} else {
		b, sep = appendRanges(b, &r.Scalar, sep)
		if !r.Var.IsUnknown() {
			b = appendTnum(append(append(b, sep...), "var_off="...), r.Var)
		}
	}
	return append(b, ')')
}

// AppendFrame appends frame i of s the way the kernel's
// print_verifier_state prints a whole frame, without the final newline:
// " frame1: R1=ctx() R10=fp0 fp-8=mmmmmmmm refs=2 cb". Every item starts
// with a space, as in the kernel log.
func (p *Printer) AppendFrame(b []byte, s *State, i int) []byte {
	return p.AppendFrameScratched(b, s, i, allRegsLive, allSlots)
}

// allSlots selects every stack slot in AppendFrameScratched.
const allSlots = ^uint64(0)

// AppendFrameScratched is AppendFrame restricted to the registers in regs
// (bit i for ri) and the stack slots in slots (bit spi), the way the kernel
// prints only what the last instruction touched ("scratched") after each
// instruction at log level 1. References and callback markers always print.
func (p *Printer) AppendFrameScratched(b []byte, s *State, i int, regs uint16, slots uint64) []byte {
	f := s.Frames[i]
	if f.FrameNo != 0 {
		b = strconv.AppendInt(append(b, " frame"...), int64(f.FrameNo), 10)
		b = append(b, ':')
	}
	for r := range NumRegs {
		reg := f.Reg(r)
		if reg.Type == NotInit || regs&(1<<r) == 0 {
			continue
		}
		b = strconv.AppendInt(append(b, " R"...), int64(r), 10)
		b = p.AppendReg(append(b, '='), reg, f.FrameNo)
	}
	for spi := 0; spi < f.NumSlots(); spi++ {
		sl := f.Slot(spi)
		if slots&(1<<spi) == 0 || !sl.IsValid() {
			continue
		}
		switch sl.Types[lastByte] {
		case StackSpill:
			b = appendSlotChars(b, sl, spi)
			b = p.AppendReg(b, &sl.Spilled, f.FrameNo)
		case StackDynptr:
			if p.DynptrType == nil || spi+1 >= f.NumSlots() {
				b = appendSlotChars(b, sl, spi)
				continue
			}
			// A dynptr prints once, at its first (higher) slot.
			spi++
			b = p.appendDynptr(b, &f.Slot(spi).Spilled, spi)
		case StackIter:
			// Only the iterator's main slot holds its reference.
			if sl.Spilled.RefObjID == 0 {
				continue
			}
			b = p.appendIter(b, &sl.Spilled, spi)
		default:
			b = appendSlotChars(b, sl, spi)
		}
	}
	if len(s.Refs) > 0 && s.Refs[0].ID != 0 {
		b = strconv.AppendUint(append(b, " refs="...), uint64(s.Refs[0].ID), 10)
		for _, ref := range s.Refs[1:] {
			if ref.ID != 0 {
				b = strconv.AppendUint(append(b, ','), uint64(ref.ID), 10)
			}
		}
	}
	if f.InCallbackFn {
		b = append(b, " cb"...)
	}
	if f.InAsyncCallbackFn {
		b = append(b, " async_cb"...)
	}
	return b
}

// appendSlotChars appends " fp-N=" and the byte kinds of a slot; for a
// spilled register only the bytes below the spilled part, which the
// register's own print follows.
func appendSlotChars(b []byte, sl *Slot, spi int) []byte {
	b = strconv.AppendInt(append(b, " fp"...), int64(SlotOffset(spi)), 10)
	b = append(b, '=')
	for _, t := range sl.Types {
		if sl.Types[lastByte] == StackSpill && t == StackSpill {
			break
		}
		b = append(b, t.String()[0])
	}
	return b
}

// appendDynptr appends the dynptr whose first slot is spi, as
// print_verifier_state: " fp-16=dynptr_ringbuf(id=1,ref_id=2,dynptr_id=1)".
// The kernel's dynptr_id shares its bytes with the slot's first_slot flag,
// so the first slot always shows dynptr_id=1.
func (p *Printer) appendDynptr(b []byte, r *Reg, spi int) []byte {
	b = strconv.AppendInt(append(b, " fp"...), int64(SlotOffset(spi)), 10)
	b = append(append(append(b, "=dynptr_"...), p.DynptrType(r.Aux)...), '(')
	sep := ""
	if r.ID != 0 {
		b = strconv.AppendUint(append(b, "id="...), uint64(r.ID), 10)
		sep = ","
	}
	if r.RefObjID != 0 {
		b = strconv.AppendUint(append(append(b, sep...), "ref_id="...), uint64(r.RefObjID), 10)
		sep = ","
	}
	if r.Off != 0 {
		b = strconv.AppendInt(append(append(b, sep...), "dynptr_id="...), int64(r.Off), 10)
	}
	return append(b, ')')
}

// iterStateNames are iter_state_str's names of the iterator states.
var iterStateNames = [...]string{IterInvalid: "<invalid>", IterActive: "active", IterDrained: "drained"}

// appendIter appends the iterator whose main slot is spi:
// " fp-8=iter_num(ref_id=1,state=active,depth=0)".
func (p *Printer) appendIter(b []byte, r *Reg, spi int) []byte {
	name := ""
	if p.BTFName != nil {
		name = p.BTFName(r.Aux)
	}
	const prefix = "bpf_iter_"
	if len(name) >= len(prefix) && name[:len(prefix)] == prefix {
		name = name[len(prefix):]
	}
	state := "<unknown>"
	if r.Off >= 0 && int(r.Off) < len(iterStateNames) {
		state = iterStateNames[r.Off]
	}
	b = strconv.AppendInt(append(b, " fp"...), int64(SlotOffset(spi)), 10)
	b = append(append(append(b, "=iter_"...), name...), "(ref_id="...)
	b = strconv.AppendUint(b, uint64(r.RefObjID), 10)
	b = append(append(append(b, ",state="...), state...), ",depth="...)
	b = strconv.AppendUint(b, uint64(uint32(r.Range)), 10)
	return append(b, ')')
}

// String returns r in the log's form, without map sizes.
func (r Reg) String() string {
	var p Printer
	return string(p.AppendReg(nil, &r, int32(r.FrameNo())))
}

// String returns the current frame of s in the log's form, without the
// leading space: "R1=ctx() R10=fp0 fp-8=mmmmmmmm".
func (s *State) String() string {
	var p Printer
	b := p.AppendFrame(nil, s, int(s.CurFrame))
	if len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return string(b)
}
