package gen

import (
	"github.com/vercheck/vercheck/insn"
)

// builder emits kernel-numbered instructions with forward and backward
// labels.
type builder struct {
	out    []insn.Insn
	labels []int
	fixups []fixup
}

// fixup is a jump or call at insn at whose offset (or imm, for calls)
// must reach label.
type fixup struct {
	at, label int
	call      bool
}

// unbound marks a label not placed yet.
const unbound = -1

func (b *builder) pc() int { return len(b.out) }

func (b *builder) emit(in insn.Insn) { b.out = append(b.out, in) }

// newLabel returns a fresh, unplaced label.
func (b *builder) newLabel() int {
	b.labels = append(b.labels, unbound)
	return len(b.labels) - 1
}

// bind places label l at the next instruction.
func (b *builder) bind(l int) { b.labels[l] = b.pc() }

// jmpTo emits a jump instruction whose offset is resolved to label l.
func (b *builder) jmpTo(in insn.Insn, l int) {
	b.fixups = append(b.fixups, fixup{at: b.pc(), label: l})
	b.emit(in)
}

// callTo emits a bpf-to-bpf call to label l.
func (b *builder) callTo(l int) {
	b.fixups = append(b.fixups, fixup{at: b.pc(), label: l, call: true})
	b.emit(insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Src: insn.PseudoCall})
}

// ldImm64 emits a 16-byte immediate load (two slots).
func (b *builder) ldImm64(dst, src uint8, lo, hi int32) {
	b.emit(insn.Insn{Op: insn.ClassLD | insn.ModeIMM | insn.SizeDW, Dst: dst, Src: src, Imm: lo, Imm2: hi})
	b.emit(insn.Insn{Filler: true, Imm: hi})
}

// resolve patches every jump and call; it reports false if a label was
// never placed or an offset does not fit.
func (b *builder) resolve() bool {
	for _, f := range b.fixups {
		target := b.labels[f.label]
		if target == unbound {
			return false
		}
		off := target - f.at - 1
		if f.call {
			b.out[f.at].Imm = int32(off)
			continue
		}
		if off < minJumpOff || off > maxJumpOff {
			return false
		}
		b.out[f.at].Off = int16(off)
	}
	return true
}

// Jump offset limits of the 16-bit off field.
const (
	minJumpOff = -1 << 15
	maxJumpOff = 1<<15 - 1
)

// Instruction constructors.

func alu(class, op uint8, dst, src uint8, off int16, imm int32, reg bool) insn.Insn {
	o := class | op
	if reg {
		o |= insn.SrcX
	}
	return insn.Insn{Op: o, Dst: dst, Src: src, Off: off, Imm: imm}
}

func movImm(dst uint8, imm int32) insn.Insn {
	return alu(insn.ClassALU64, insn.ALUMov, dst, 0, 0, imm, false)
}

func movReg(dst, src uint8) insn.Insn {
	return alu(insn.ClassALU64, insn.ALUMov, dst, src, 0, 0, true)
}

func addImm(dst uint8, imm int32) insn.Insn {
	return alu(insn.ClassALU64, insn.ALUAdd, dst, 0, 0, imm, false)
}

func sizeCode(size int) uint8 {
	switch size {
	case 1:
		return insn.SizeB
	case 2:
		return insn.SizeH
	case 4:
		return insn.SizeW
	}
	return insn.SizeDW
}

func ldx(dst, src uint8, off int16, size int) insn.Insn {
	return insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | sizeCode(size), Dst: dst, Src: src, Off: off}
}

func ldxsx(dst, src uint8, off int16, size int) insn.Insn {
	return insn.Insn{Op: insn.ClassLDX | insn.ModeMEMSX | sizeCode(size), Dst: dst, Src: src, Off: off}
}

func stx(dst, src uint8, off int16, size int) insn.Insn {
	return insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | sizeCode(size), Dst: dst, Src: src, Off: off}
}

func st(dst uint8, off int16, size int, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassST | insn.ModeMEM | sizeCode(size), Dst: dst, Off: off, Imm: imm}
}

func jmpImm(class, op, dst uint8, imm int32) insn.Insn {
	return insn.Insn{Op: class | op, Dst: dst, Imm: imm}
}

func jmpReg(class, op, dst, src uint8) insn.Insn {
	return insn.Insn{Op: class | op | insn.SrcX, Dst: dst, Src: src}
}

func call(helper int32) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Imm: helper}
}

func exit() insn.Insn { return insn.Insn{Op: insn.ClassJMP | insn.JmpExit} }
