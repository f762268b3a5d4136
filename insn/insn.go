// Package insn holds decoded BPF instructions in the compact form the
// verifier walks, the opcode tables, validation with the kernel's messages,
// and the control-flow facts the verifier needs: subprograms, jump targets,
// prune points, jump points, force checkpoints and register liveness.
//
// Instructions are numbered the way the kernel numbers them: by raw 8-byte
// slot. An ld_imm64 occupies two slots; its second slot is kept as a filler
// (Insn.Filler) so that index i in a Program is always kernel insn i.
package insn

// Instruction classes (the low three bits of the opcode).
const (
	ClassLD    uint8 = 0x00
	ClassLDX   uint8 = 0x01
	ClassST    uint8 = 0x02
	ClassSTX   uint8 = 0x03
	ClassALU   uint8 = 0x04
	ClassJMP   uint8 = 0x05
	ClassJMP32 uint8 = 0x06
	ClassALU64 uint8 = 0x07
)

// Source operand selector for ALU and JMP classes (bit 3).
const (
	SrcK uint8 = 0x00
	SrcX uint8 = 0x08
)

// ALU operations (the high four bits of an ALU/ALU64 opcode).
const (
	ALUAdd  uint8 = 0x00
	ALUSub  uint8 = 0x10
	ALUMul  uint8 = 0x20
	ALUDiv  uint8 = 0x30
	ALUOr   uint8 = 0x40
	ALUAnd  uint8 = 0x50
	ALULsh  uint8 = 0x60
	ALURsh  uint8 = 0x70
	ALUNeg  uint8 = 0x80
	ALUMod  uint8 = 0x90
	ALUXor  uint8 = 0xa0
	ALUMov  uint8 = 0xb0
	ALUArsh uint8 = 0xc0
	ALUEnd  uint8 = 0xd0
)

// Jump operations (the high four bits of a JMP/JMP32 opcode).
const (
	JmpJA    uint8 = 0x00
	JmpJEQ   uint8 = 0x10
	JmpJGT   uint8 = 0x20
	JmpJGE   uint8 = 0x30
	JmpJSET  uint8 = 0x40
	JmpJNE   uint8 = 0x50
	JmpJSGT  uint8 = 0x60
	JmpJSGE  uint8 = 0x70
	JmpCall  uint8 = 0x80
	JmpExit  uint8 = 0x90
	JmpJLT   uint8 = 0xa0
	JmpJLE   uint8 = 0xb0
	JmpJSLT  uint8 = 0xc0
	JmpJSLE  uint8 = 0xd0
	JmpJCOND uint8 = 0xe0 // may_goto
)

// Memory access sizes (bits 3-4 of LD/LDX/ST/STX opcodes).
const (
	SizeW  uint8 = 0x00 // 4 bytes
	SizeH  uint8 = 0x08 // 2 bytes
	SizeB  uint8 = 0x10 // 1 byte
	SizeDW uint8 = 0x18 // 8 bytes
)

// Memory access modes (the high three bits of LD/LDX/ST/STX opcodes).
const (
	ModeIMM    uint8 = 0x00
	ModeABS    uint8 = 0x20
	ModeIND    uint8 = 0x40
	ModeMEM    uint8 = 0x60
	ModeMEMSX  uint8 = 0x80
	ModeATOMIC uint8 = 0xc0
)

// Pseudo source registers of ld_imm64 and call instructions.
const (
	PseudoMapFD       uint8 = 1 // ld_imm64: Imm is a map index
	PseudoMapValue    uint8 = 2 // ld_imm64: Imm is a map index, Imm2 an offset into its value
	PseudoBTFID       uint8 = 3
	PseudoFunc        uint8 = 4 // ld_imm64: Imm is a relative insn offset of a subprogram
	PseudoMapIdx      uint8 = 5
	PseudoMapIdxValue uint8 = 6
	PseudoCall        uint8 = 1 // call: Imm is a relative insn offset (bpf-to-bpf)
	PseudoKfuncCall   uint8 = 2 // call: Imm is a BTF id of a kernel function
)

// Insn is one decoded instruction. It is 16 bytes so that a program is a
// dense array the interpreter walks without indirection.
type Insn struct {
	Op  uint8 // the raw opcode byte
	Dst uint8 // destination register (0-10)
	Src uint8 // source register or pseudo selector
	// Filler marks the second slot of an ld_imm64; it is never executed.
	Filler bool
	Off    int16
	_      int16
	Imm    int32 // immediate; for ld_imm64 the low 32 bits
	Imm2   int32 // ld_imm64 only: the high 32 bits (the second slot's imm)
}

// The accessors below (and those in ops.go) have pointer receivers: the
// verifier holds a pointer into the program at every insn, and a value
// receiver called through a pointer copies all 16 bytes first (inlined,
// but two more instructions at each of the hundreds of millions of calls
// a large verification makes). On a variable they read it in place.

// Class returns the instruction class.
func (i *Insn) Class() uint8 { return i.Op & 0x07 }

// IsLdImm64 reports whether i is the first slot of a 16-byte ld_imm64.
func (i *Insn) IsLdImm64() bool { return i.Op == ClassLD|ModeIMM|SizeDW }

// Imm64 returns the 64-bit immediate of an ld_imm64.
func (i *Insn) Imm64() uint64 { return uint64(uint32(i.Imm)) | uint64(uint32(i.Imm2))<<32 }

// ALUOp returns the ALU operation bits of an ALU or ALU64 instruction.
func (i *Insn) ALUOp() uint8 { return i.Op & 0xf0 }

// JmpOp returns the jump operation bits of a JMP or JMP32 instruction.
func (i *Insn) JmpOp() uint8 { return i.Op & 0xf0 }

// SrcIsReg reports whether the ALU/JMP source operand is a register.
func (i *Insn) SrcIsReg() bool { return i.Op&0x08 == SrcX }

// Mode returns the memory mode bits of a load or store.
func (i *Insn) Mode() uint8 { return i.Op & 0xe0 }

// SizeBytes returns the access width in bytes of a load or store.
func (i *Insn) SizeBytes() int {
	switch i.Op & 0x18 {
	case SizeW:
		return 4
	case SizeH:
		return 2
	case SizeB:
		return 1
	default:
		return 8
	}
}

// IsJmpClass reports whether i belongs to the JMP or JMP32 class.
func (i *Insn) IsJmpClass() bool { c := i.Class(); return c == ClassJMP || c == ClassJMP32 }
