package insn

// Small constructors for hand-built test programs.

func movImm(dst uint8, imm int32) Insn {
	return Insn{Op: ClassALU64 | ALUMov | SrcK, Dst: dst, Imm: imm}
}
func movReg(dst, src uint8) Insn {
	return Insn{Op: ClassALU64 | ALUMov | SrcX, Dst: dst, Src: src}
}
func aluImm(op, dst uint8, imm int32) Insn {
	return Insn{Op: ClassALU64 | op | SrcK, Dst: dst, Imm: imm}
}
func aluReg(op, dst, src uint8) Insn { return Insn{Op: ClassALU64 | op | SrcX, Dst: dst, Src: src} }
func exit() Insn                     { return Insn{Op: ClassJMP | JmpExit} }
func ja(off int16) Insn              { return Insn{Op: ClassJMP | JmpJA, Off: off} }
func jmpImm(op, dst uint8, imm int32, off int16) Insn {
	return Insn{Op: ClassJMP | op | SrcK, Dst: dst, Imm: imm, Off: off}
}
func call(id int32) Insn    { return Insn{Op: ClassJMP | JmpCall, Imm: id} }
func callPC(off int32) Insn { return Insn{Op: ClassJMP | JmpCall, Src: PseudoCall, Imm: off} }
func ldx(size, dst, src uint8, off int16) Insn {
	return Insn{Op: ClassLDX | ModeMEM | size, Dst: dst, Src: src, Off: off}
}
func stx(size, dst, src uint8, off int16) Insn {
	return Insn{Op: ClassSTX | ModeMEM | size, Dst: dst, Src: src, Off: off}
}
func st(size, dst uint8, off int16, imm int32) Insn {
	return Insn{Op: ClassST | ModeMEM | size, Dst: dst, Off: off, Imm: imm}
}

// ldImm64 returns both slots of an ld_imm64.
func ldImm64(dst, src uint8, v uint64) []Insn {
	return []Insn{
		{Op: ClassLD | ModeIMM | SizeDW, Dst: dst, Src: src, Imm: int32(uint32(v)), Imm2: int32(uint32(v >> 32))},
		{Filler: true, Imm: int32(uint32(v >> 32))},
	}
}

// prog flattens instructions and slot pairs into one program.
func prog(parts ...any) []Insn {
	var out []Insn
	for _, p := range parts {
		switch v := p.(type) {
		case Insn:
			out = append(out, v)
		case []Insn:
			out = append(out, v...)
		}
	}
	return out
}
