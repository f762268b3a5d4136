package insn

// Register numbers and limits.
const (
	// R0 holds return values of helpers, subprograms and the program.
	R0 uint8 = 0
	// R1 is the first argument register (the context at program entry).
	R1 uint8 = 1
	R2 uint8 = 2
	R3 uint8 = 3
	R4 uint8 = 4
	// R5 is the last argument register.
	R5 uint8 = 5
	// R6-R9 are callee-saved.
	R6 uint8 = 6
	R7 uint8 = 7
	R8 uint8 = 8
	R9 uint8 = 9
	// R10 is the read-only frame pointer.
	R10 uint8 = 10
	// NumRegs is the number of registers the verifier tracks (r0-r10);
	// any register number at or above it is invalid.
	NumRegs = 11
	// MaxArgs is the number of argument registers of a call (r1-r5).
	MaxArgs = 5
)

// Byte-swap direction selectors of ALU|END (the source bit of the opcode).
const (
	EndToLE uint8 = 0x00 // convert to little endian (ALU64|END: unconditional bswap)
	EndToBE uint8 = 0x08 // convert to big endian
)

// Atomic operations, stored in the imm field of STX|ATOMIC.
const (
	AtomicFetch   int32 = 0x01 // modifier: return the old value in src
	AtomicAdd     int32 = int32(ALUAdd)
	AtomicOr      int32 = int32(ALUOr)
	AtomicAnd     int32 = int32(ALUAnd)
	AtomicXor     int32 = int32(ALUXor)
	AtomicXchg    int32 = 0xe0 | AtomicFetch
	AtomicCmpXchg int32 = 0xf0 | AtomicFetch
	// AtomicLoadAcq is a load-acquire: dst = *(src + off).
	AtomicLoadAcq int32 = 0x100
	// AtomicStoreRel is a store-release: *(dst + off) = src.
	AtomicStoreRel int32 = 0x110
)

// Special offsets of ALU instructions (cpu v4 and arena extensions).
const (
	// OffSigned selects signed division/modulo (sdiv, smod).
	OffSigned int16 = 1
	// OffAddrSpaceCast on ALU64|MOV|X marks an arena address-space cast.
	OffAddrSpaceCast int16 = 1
	// OffPercpuAddr on ALU64|MOV|X marks the internal per-CPU address move.
	OffPercpuAddr int16 = -1
)

// Immediates of an address-space cast: (dst_as << 16) | src_as, between
// the arena's user addresses (address space 1) and the kernel's (0).
const (
	// CastToKernel converts an arena address of user space (as 1) into the
	// kernel's view of it (as 0): the register becomes an arena pointer.
	CastToKernel int32 = 1
	// CastToUser converts a kernel address (as 0) into the user space
	// address of the same arena byte (as 1): a plain number.
	CastToUser int32 = 1 << 16
)

// MayGotoSrc is the src register value that makes JMP|JCOND a may_goto.
const MayGotoSrc uint8 = 0

// MaxVarOff bounds the value offset of a PseudoMapValue ld_imm64
// (the kernel's BPF_MAX_VAR_OFF, 1<<29).
const MaxVarOff = 1 << 29

// MaxSubprogs is the most subprograms a program may have (BPF_MAX_SUBPROGS).
const MaxSubprogs = 256

// Helper function ids that the control-flow analysis treats specially.
const (
	HelperTailCall         int32 = 12
	HelperForEachMapElem   int32 = 164
	HelperTimerSetCallback int32 = 170
	HelperFindVMA          int32 = 180
	HelperLoop             int32 = 181
	HelperUserRingbufDrain int32 = 209
)

// Slot is the size in bytes of one raw instruction slot.
const Slot = 8

// IsPseudoCall reports whether i is a bpf-to-bpf call (Imm is the relative
// offset of the callee).
func (i *Insn) IsPseudoCall() bool { return i.Op == ClassJMP|JmpCall && i.Src == PseudoCall }

// IsHelperCall reports whether i calls a helper function by id.
func (i *Insn) IsHelperCall() bool { return i.Op == ClassJMP|JmpCall && i.Src == 0 }

// IsTailCall reports whether i calls the bpf_tail_call helper.
func (i *Insn) IsTailCall() bool { return i.IsHelperCall() && i.Imm == HelperTailCall }

// IsLdAbsOrInd reports whether i is a legacy packet load (LD_ABS or
// LD_IND), which ends its subprogram when the load fails.
func (i *Insn) IsLdAbsOrInd() bool {
	return i.Class() == ClassLD && (i.Mode() == ModeABS || i.Mode() == ModeIND)
}

// IsKfuncCall reports whether i calls a kernel function by BTF id.
func (i *Insn) IsKfuncCall() bool { return i.Op == ClassJMP|JmpCall && i.Src == PseudoKfuncCall }

// IsPseudoFunc reports whether i is an ld_imm64 of a subprogram address
// (Imm is the relative offset of the subprogram).
func (i *Insn) IsPseudoFunc() bool { return i.IsLdImm64() && i.Src == PseudoFunc }

// IsMayGoto reports whether i is a may_goto: JMP|JCOND with the may_goto
// src marker. A JCOND with another src is no may_goto (it is rejected when
// checked, and gets no forced checkpoint before that).
func (i *Insn) IsMayGoto() bool { return i.Op == ClassJMP|JmpJCOND && i.Src == MayGotoSrc }

// JumpOffset returns the relative jump distance of a JMP/JMP32 instruction:
// the imm of a JMP32|JA ("gotol"), the off field otherwise.
func (i *Insn) JumpOffset() int32 {
	if i.Op == ClassJMP32|JmpJA {
		return i.Imm
	}
	return int32(i.Off)
}

// Width returns the number of slots i occupies: 2 for an ld_imm64, else 1.
func (i *Insn) Width() int {
	if i.IsLdImm64() {
		return 2
	}
	return 1
}

// IsConditional reports a conditional jump: a JMP or JMP32 that is not
// ja, call, exit or may_goto.
func (i *Insn) IsConditional() bool {
	if !i.IsJmpClass() {
		return false
	}
	switch i.JmpOp() {
	case JmpJA, JmpCall, JmpExit, JmpJCOND:
		return false
	}
	return true
}

// Relative returns the relative distance i refers to, from the
// instruction after it: a jump (conditional, goto, gotol, may_goto), a
// bpf-to-bpf call or an ld_imm64 of a function address. Helper and kfunc
// calls, exits and the second slot of an ld_imm64 have none.
func (i *Insn) Relative() (int32, bool) {
	switch {
	case i.Filler:
		return 0, false
	case i.IsPseudoCall(), i.IsPseudoFunc():
		return i.Imm, true
	case i.IsJmpClass():
		if op := i.JmpOp(); op == JmpCall || op == JmpExit {
			return 0, false
		}
		return i.JumpOffset(), true
	}
	return 0, false
}
