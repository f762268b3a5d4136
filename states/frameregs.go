package states

import (
	"math/bits"
	"unsafe"
)

// The registers of one frame.
//
// Like the stack, the registers have two layouts. A working frame holds
// all eleven in an array allocated with the frame (Regs), since the
// interpreter reads and writes them all. A packed frame (a held state:
// see the stack's doc) holds only the registers that differ from their
// canonical value, with a bit mask of which they are: for r0-r9 the
// NotInit register MarkNotInit writes, for r10 the frame pointer of the
// frame's own number, which no instruction can change. A checkpoint has
// r1-r5 NotInit after a call and more once cleaned, so a held frame
// keeps four to eight of its eleven 96-byte registers. The kernel keeps
// them all, which decides no answer, since a register the layout leaves
// out reads as exactly what was left out, byte for byte (regs_exact
// compares them so).

// allRegsPresent names r0..r10.
const allRegsPresent uint16 = 1<<NumRegs - 1

// notInitRegs is InitFrame's register file before r10 is set: every
// register canonical NotInit.
var notInitRegs = func() (a [NumRegs]Reg) {
	for i := range a {
		a[i].MarkNotInit()
	}
	return a
}()

// absentReg is what a packed frame's unstored r0-r9 read as: the
// canonical NotInit register. Callers only read it.
var absentReg = notInitRegs[0]

// framePointers are the canonical r10 of each frame number, what a packed
// frame's unstored r10 reads as; framePointersCopy is kept to check them.
// Callers only read them.
var framePointers, framePointersCopy = func() (a, b [MaxCallFrames]Reg) {
	for i := range a {
		a[i].MarkFramePointer(int32(i))
	}
	return a, a
}()

// AbsentRegIntact reports whether the shared registers packed frames return
// for their unstored registers are still canonical: a write through Reg to
// such a register would change every held state's register at once. The
// verifier checks it after each program.
func AbsentRegIntact() bool {
	return absentReg == notInitRegs[0] && framePointers == framePointersCopy
}

// canonicalReg returns what register r of a frame numbered frameNo reads
// as when a packed copy leaves it out.
func canonicalReg(r int, frameNo int32) *Reg {
	if r == RegFP && frameNo >= 0 && frameNo < MaxCallFrames {
		return &framePointers[frameNo]
	}
	return &absentReg
}

// isAbsentReg reports whether a packed copy of a frame numbered frameNo
// may leave register r, holding reg, out: it is byte for byte its
// canonical value.
func isAbsentReg(reg *Reg, r int, frameNo int32) bool {
	if r == RegFP {
		return frameNo >= 0 && frameNo < MaxCallFrames && sameReg(reg, &framePointers[frameNo])
	}
	return reg.Type == NotInit && sameReg(reg, &notInitRegs[0])
}

// regWords is the number of 8-byte words a Reg spans.
const regWords = 12

// regTailMask selects, in a Reg's last word (bytes 88-95), the bytes of
// its fields (Buf.Frame, Type, frameMark and Flags), leaving out the
// padding after Buf and at the end, whose contents Go leaves undefined.
// TestRegTailMask derives both constants from the layout.
const regTailMask = 0x0000_ffff_ffff_00ff

// sameReg is *a == *b, compared as twelve words, the last one masked. Go's
// == on a Reg (a struct with padding) calls a generated function that
// compares its first 89 bytes with memequal and the rest field by field:
// a packed copy asks it of every NotInit register and every frame pointer
// (isAbsentReg), 2% of the instructions of a loop-heavy program (falco's
// bpf_probe.o), twice what this takes.
func sameReg(a, b *Reg) bool {
	x := (*[regWords]uint64)(unsafe.Pointer(a))
	y := (*[regWords]uint64)(unsafe.Pointer(b))
	d := (x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) |
		(x[4] ^ y[4]) | (x[5] ^ y[5]) | (x[6] ^ y[6]) | (x[7] ^ y[7]) |
		(x[8] ^ y[8]) | (x[9] ^ y[9]) | (x[10] ^ y[10]) | (x[11]^y[11])&regTailMask
	return d == 0
}

// Regs returns the registers of a working frame, r0..r10, to read and
// write. A packed frame (a held state) has no register array: it returns
// nil, so reading a held state's registers must go through Reg.
func (f *Frame) Regs() *[NumRegs]Reg { return f.dense }

// Reg returns register r (r < NumRegs) of f, in either layout. The
// register may be written, except that a packed frame has no storage for
// the registers it left out (canonical NotInit): for those it returns a
// shared register, which callers only read. Nothing writes a held state's
// registers but cleaning (which skips them, see HeldReg), precision marks,
// which only go to scalars, and the refinements of a branch just pushed,
// which only go to the registers a jump compared or their ids' kin, never
// NotInit.
func (f *Frame) Reg(r int) *Reg {
	if !f.packed {
		return &f.dense[r]
	}
	if reg := f.packedReg(r); reg != nil {
		return reg
	}
	return canonicalReg(r, f.FrameNo)
}

// HeldReg is Reg, but nil for a register a packed frame left out
// (canonical NotInit): for walks that change registers of some kind,
// which such a register never is, or make them NotInit again.
func (f *Frame) HeldReg(r int) *Reg {
	if !f.packed {
		return &f.dense[r]
	}
	return f.packedReg(r)
}

// HeldRegs returns the number of registers f keeps in memory: all of a
// working frame's, those a packed frame did not leave out.
func (f *Frame) HeldRegs() int {
	if f.packed {
		return len(f.pregs)
	}
	return NumRegs
}

// packedReg returns the stored register r of a packed frame, nil when it
// was left out.
func (f *Frame) packedReg(r int) *Reg {
	bit := uint16(1) << r
	if f.regPresent&bit == 0 {
		return nil
	}
	return &f.pregs[bits.OnesCount16(f.regPresent&(bit-1))]
}

// heldRegs returns the registers f stores and which they are: regs[k] is
// the register of the k-th bit set in mask (every register of a working
// frame). A register outside mask is canonical NotInit.
func (f *Frame) heldRegs() (mask uint16, regs []Reg) {
	if f.packed {
		return f.regPresent, f.pregs
	}
	return allRegsPresent, f.dense[:]
}

// Unpack gives every frame of s the working (dense) layout, for a
// state just pushed whose registers the caller is about to set, NotInit
// ones included.
func (s *State) Unpack() {
	for i := 0; i <= int(s.CurFrame); i++ {
		s.Frames[i].unpack()
	}
}

// ensureDense gives a frame about to be used as a working frame its
// register array, reusing the one it has.
func (f *Frame) ensureDense() {
	if f.dense == nil {
		f.dense = new([NumRegs]Reg)
	}
}

// packRegsFrom sets f's packed registers to a copy of the registers of
// src (either layout) that are not canonical NotInit, reusing the memory
// of f.pregs.
func (f *Frame) packRegsFrom(src *Frame, p *Pool) {
	if src.packed {
		if cap(f.pregs) < len(src.pregs) {
			f.pregs = p.regs.carve(len(src.pregs))
		}
		f.pregs = append(f.pregs[:0], src.pregs...)
		f.regPresent = src.regPresent
		return
	}
	var present uint16
	for i := range src.dense {
		if !isAbsentReg(&src.dense[i], i, src.FrameNo) {
			present |= 1 << i
		}
	}
	n := bits.OnesCount16(present)
	pregs := f.pregs
	if cap(pregs) < n {
		pregs = p.regs.carve(n)
	}
	pregs = pregs[:n]
	k := 0
	for m := present; m != 0; m &= m - 1 {
		pregs[k] = src.dense[bits.TrailingZeros16(m)]
		k++
	}
	f.pregs, f.regPresent = pregs, present
}

// unpackRegsTo writes the registers of f (either layout) to dst, the
// left-out ones as canonical NotInit.
func (f *Frame) unpackRegsTo(dst *[NumRegs]Reg) {
	if !f.packed {
		*dst = *f.dense
		return
	}
	*dst = notInitRegs
	dst[RegFP] = *canonicalReg(RegFP, f.FrameNo)
	k := 0
	for m := f.regPresent; m != 0; m &= m - 1 {
		dst[bits.TrailingZeros16(m)] = f.pregs[k]
		k++
	}
}

// denseFrame is a working frame allocated with its register array, one
// object instead of two.
type denseFrame struct {
	f    Frame
	regs [NumRegs]Reg
}

// newFrame allocates a working frame with its register array.
func newFrame() *Frame {
	d := &denseFrame{}
	d.f.dense = &d.regs
	return &d.f
}

// SetRegPrecise marks reg, register r of f (f.Reg(r)), a scalar, precise,
// keeping the summary of a sealed frame current (stackSummary.looseRegs):
// the precision walks over stored checkpoints go through it.
func (f *Frame) SetRegPrecise(r int, reg *Reg) {
	reg.SetPrecise(true)
	f.sum.looseRegs &^= 1 << r
}

// SetSlotPrecise marks the scalar spilled in s, slot spi of f (f.Slot(spi)),
// precise, keeping the summary of a sealed frame current
// (stackSummary.looseSlots).
func (f *Frame) SetSlotPrecise(spi int, s *Slot) {
	s.Spilled.SetPrecise(true)
	f.sum.looseSlots &^= 1 << spi
}
