package why

import (
	"fmt"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

// explainStack explains an access through a stack pointer (or a stack
// pointer passed to a call): outside the frame, bytes never written on
// the path, or a slot holding the wrong kind of object.
func (a *analysis) explainStack(x *Explanation, r uint8, v *states.Reg, in insn.Insn) {
	off, size := int16(0), 1
	if _, ok := memBase(in); ok {
		off, size = in.Off, in.SizeBytes()
	}
	addr, ok := stackAddr(v, off)
	if !ok {
		// A variable offset: its range is at fault.
		a.explainRange(x, r, v)
		return
	}
	if isCall(in) && addr >= 0 {
		// The frame's top holds no byte: a pointer there is not memory
		// for the call, but a pointer where it wants something else.
		t := a.trace(r, propType)
		x.Cause = PointerKind
		a.finish(x, t, fmt.Sprintf("R%d is %s", r, a.reg(v, a.path[a.last].Frame)))
		return
	}
	if addr < -states.MaxStack || addr+size > 0 {
		t := a.trace(r, propOffset)
		x.Cause = StackBounds
		if t.origin < 0 {
			t.entryNote = fmt.Sprintf("the instruction's offset %+d puts it there", off)
		}
		a.finish(x, t, fmt.Sprintf("R%d points at fp%+d, outside the frame's [-%d, 0)", r, addr, states.MaxStack))
		return
	}
	x.Register = fmt.Sprintf("fp%d", addr)
	slot := a.slotText(v.FrameNo(), addr)
	j := a.lastTouch(a.last, v.FrameNo(), addr, size)
	x.Cause = StackObject
	if a.hasInvalidByte(v.FrameNo(), addr, size) {
		x.Cause = UninitStack
	}
	what := fmt.Sprintf("fp%d holds %s", addr, slot)
	if j >= 0 {
		note := fmt.Sprintf("the last store into fp%d", addr)
		if isCall(a.in.Insns[a.path[j].Insn]) {
			note = fmt.Sprintf("the last call given fp%d", addr)
		}
		a.finish(x, traced{origin: j, links: []link{{step: j, frame: a.path[j].Frame, note: note}}}, what)
		return
	}
	if x.Cause == StackObject {
		a.finish(x, traced{origin: -1, entryNote: "no instruction on the path touched it"}, what)
		return
	}
	b, w := a.skippedWrite(v.FrameNo(), addr, size)
	if b < 0 {
		a.finish(x, traced{origin: -1, entryNote: "no instruction of the function writes it before this one"}, what)
		return
	}
	t := traced{origin: b, links: []link{{step: b, frame: a.path[b].Frame, note: fmt.Sprintf("this branch skipped the write at insn %d", w)}}}
	a.relevant[b] = true
	a.finish(x, t, what+", never written on this path")
}

// slotText renders the bytes of the stack slot holding addr at the error,
// as the log prints them ("mmmm????").
func (a *analysis) slotText(frame, addr int) string {
	f := a.in.Final.Frames[frame]
	spi := (-addr - 1) / states.SlotSize
	if f == nil || spi >= f.NumSlots() {
		return "nothing (never written)"
	}
	var b []byte
	for i := states.SlotSize - 1; i >= 0; i-- {
		b = append(b, f.Slot(spi).Types[i].String()...)
	}
	return string(b)
}

// hasInvalidByte reports a byte of [addr, addr+size) never written, at
// the error.
func (a *analysis) hasInvalidByte(frame, addr, size int) bool {
	f := a.in.Final.Frames[frame]
	for o := addr; o < addr+size; o++ {
		spi := (-o - 1) / states.SlotSize
		if f == nil || spi >= f.NumSlots() {
			return true
		}
		// Byte o is Types[(o+8*(spi+1))]: the slot's lowest address is
		// byte 0.
		if f.Slot(spi).Types[o+states.SlotSize*(spi+1)] == states.StackInvalid {
			return true
		}
	}
	return false
}

// lastTouch returns the last step before k that stored into [addr,
// addr+size) of frame frameNo or passed a pointer into it to a call, or -1.
func (a *analysis) lastTouch(k int, frameNo, addr, size int) int {
	st := a.lastStore(k, frameNo, addr, size)
	for j := k - 1; j > st; j-- {
		if !isCall(a.in.Insns[a.path[j].Insn]) {
			continue
		}
		for r := insn.R1; r <= insn.R5; r++ {
			p := &a.path[j].Regs[r]
			at, ok := stackAddr(p, 0)
			if ok && p.FrameNo() == frameNo && at <= addr && addr < at+states.SlotSize*2 {
				return j
			}
		}
	}
	return st
}

// skippedWrite finds the last branch of the path whose edge not taken
// leads to a store into [addr, addr+size) through r10: the path that
// skipped the write. It returns the branch's step and the store's
// instruction, or -1.
func (a *analysis) skippedWrite(frame, addr, size int) (int, int) {
	stores := map[int]bool{}
	for i, in := range a.in.Insns {
		if (in.Class() == insn.ClassST || in.Class() == insn.ClassSTX) && in.Dst == insn.R10 &&
			int(in.Off) < addr+size && addr < int(in.Off)+in.SizeBytes() {
			stores[i] = true
		}
	}
	if len(stores) == 0 {
		return -1, -1
	}
	for k := a.last - 1; k >= 0; k-- {
		s := &a.path[k]
		in := a.in.Insns[s.Insn]
		if int(s.Frame) != frame || !in.IsConditional() {
			continue
		}
		other := int(s.Insn) + 1
		if int(a.path[k+1].Insn) == other {
			other = int(s.Insn) + 1 + int(in.Off)
		}
		if w := a.reaches(other, stores); w >= 0 {
			return k, w
		}
	}
	return -1, -1
}

// reaches returns a store of stores reachable from instruction from
// without leaving the function (calls fall through, exits end), or -1.
func (a *analysis) reaches(from int, stores map[int]bool) int {
	seen := map[int]bool{}
	work := []int{from}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		if i < 0 || i >= len(a.in.Insns) || seen[i] {
			continue
		}
		seen[i] = true
		if stores[i] {
			return i
		}
		work = append(work, successors(a.in.Insns, i)...)
	}
	return -1
}

// successors lists the instructions control may flow to from i within
// its function.
func successors(insns []insn.Insn, i int) []int {
	in := insns[i]
	switch {
	case in.IsLdImm64():
		return []int{i + 2}
	case !in.IsJmpClass() || in.JmpOp() == insn.JmpCall:
		return []int{i + 1}
	case in.JmpOp() == insn.JmpExit:
		return nil
	case in.JmpOp() == insn.JmpJA:
		return []int{i + 1 + int(in.JumpOffset())}
	}
	return []int{i + 1, i + 1 + int(in.Off)}
}
