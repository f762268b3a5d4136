package interp

import (
	"math/bits"

	"github.com/vercheck/vercheck/insn"
)

// Widths and masks of the 32-bit subregister and of byte-swap operands.
const (
	bitsPerByte   = 8
	shiftMask64   = 63
	shiftMask32   = 31
	swap16        = 16
	swap32        = 32
	swap64        = 64
	maxCallFrames = 8
	// Sign-extension widths of movsx and ldsx, in bits.
	sx8, sx16, sx32 = 8, 16, 32
	// ldImm64Slots is the number of slots an ld_imm64 occupies.
	ldImm64Slots = 2
)

// step executes the instruction at pc and returns the next pc; done is set
// when the main program exits.
func (m *Machine) step(pc int) (next int, done bool, err error) {
	in := m.prog[pc]
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64:
		return pc + 1, false, m.alu(pc, in)
	case insn.ClassLD:
		if !in.IsLdImm64() {
			return 0, false, violation(pc, BadInsn, "legacy packet load %#x", in.Op)
		}
		return pc + ldImm64Slots, false, m.ldImm64(pc, in)
	case insn.ClassLDX:
		return pc + 1, false, m.ldx(pc, in)
	case insn.ClassST:
		if in.Mode() != insn.ModeMEM {
			return 0, false, violation(pc, BadInsn, "store mode %#x", in.Mode())
		}
		ptr, err := m.reg(pc, in.Dst)
		if err != nil {
			return 0, false, err
		}
		return pc + 1, false, m.store(pc, ptr, int64(in.Off), in.SizeBytes(), ScalarOf(uint64(int64(in.Imm))))
	case insn.ClassSTX:
		return pc + 1, false, m.stx(pc, in)
	default:
		return m.jmp(pc, in)
	}
}

// ldImm64 executes a 16-byte immediate load.
func (m *Machine) ldImm64(pc int, in insn.Insn) error {
	var v Value
	switch in.Src {
	case 0:
		v = ScalarOf(in.Imm64())
	case insn.PseudoMapFD, insn.PseudoMapIdx:
		v = Value{Kind: PtrMap, Map: int(in.Imm)}
	case insn.PseudoMapValue, insn.PseudoMapIdxValue:
		v = Value{Kind: PtrMapValue, Map: int(in.Imm), Off: int64(uint32(in.Imm2))}
	case insn.PseudoFunc:
		v = Value{Kind: PtrFunc, Off: int64(pc + int(in.Imm) + 1)}
	default:
		return violation(pc, BadInsn, "ld_imm64 with src %d", in.Src)
	}
	if (v.Kind == PtrMap || v.Kind == PtrMapValue) && (v.Map < 0 || v.Map >= len(m.maps)) {
		return violation(pc, BadPointer, "ld_imm64 of unknown map %d", v.Map)
	}
	return m.setReg(pc, in.Dst, v)
}

// ldx executes a load (zero- or sign-extending).
func (m *Machine) ldx(pc int, in insn.Insn) error {
	ptr, err := m.reg(pc, in.Src)
	if err != nil {
		return err
	}
	size := in.SizeBytes()
	v, err := m.load(pc, ptr, int64(in.Off), size)
	if err != nil {
		return err
	}
	switch in.Mode() {
	case insn.ModeMEM:
	case insn.ModeMEMSX:
		if v.Kind != Scalar {
			return violation(pc, Mangled, "sign-extending load of a pointer")
		}
		v.Bits = signExtend(v.Bits, size*bitsPerByte)
	default:
		return violation(pc, BadInsn, "load mode %#x", in.Mode())
	}
	return m.setReg(pc, in.Dst, v)
}

// stx executes a register store or an atomic operation.
func (m *Machine) stx(pc int, in insn.Insn) error {
	ptr, err := m.reg(pc, in.Dst)
	if err != nil {
		return err
	}
	src, err := m.reg(pc, in.Src)
	if err != nil {
		return err
	}
	size := in.SizeBytes()
	off := int64(in.Off)
	switch in.Mode() {
	case insn.ModeMEM:
		return m.store(pc, ptr, off, size, src)
	case insn.ModeATOMIC:
	default:
		return violation(pc, BadInsn, "store mode %#x", in.Mode())
	}
	switch in.Imm {
	case insn.AtomicLoadAcq:
		// dst = *(src + off)
		v, err := m.load(pc, src, off, size)
		if err != nil {
			return err
		}
		return m.setReg(pc, in.Dst, v)
	case insn.AtomicStoreRel:
		return m.store(pc, ptr, off, size, src)
	}
	oldV, err := m.load(pc, ptr, off, size)
	if err != nil {
		return err
	}
	old := m.addr(oldV)
	operand := m.addr(src)
	var val uint64
	switch in.Imm &^ insn.AtomicFetch {
	case insn.AtomicAdd:
		val = old + operand
	case insn.AtomicOr:
		val = old | operand
	case insn.AtomicAnd:
		val = old & operand
	case insn.AtomicXor:
		val = old ^ operand
	case insn.AtomicXchg &^ insn.AtomicFetch:
		val = operand
	case insn.AtomicCmpXchg &^ insn.AtomicFetch:
		r0, err := m.reg(pc, insn.R0)
		if err != nil {
			return err
		}
		val = old
		if truncate(m.addr(r0), size) == truncate(old, size) {
			val = operand
		}
		if err := m.store(pc, ptr, off, size, ScalarOf(val)); err != nil {
			return err
		}
		return m.setReg(pc, insn.R0, ScalarOf(truncate(old, size)))
	default:
		return violation(pc, BadInsn, "atomic op %#x", in.Imm)
	}
	if err := m.store(pc, ptr, off, size, ScalarOf(val)); err != nil {
		return err
	}
	if in.Imm&insn.AtomicFetch != 0 {
		return m.setReg(pc, in.Src, ScalarOf(truncate(old, size)))
	}
	return nil
}

// truncate keeps the low size bytes of v.
func truncate(v uint64, size int) uint64 {
	if size >= 8 {
		return v
	}
	return v & (1<<(size*bitsPerByte) - 1)
}

// signExtend sign-extends the low width bits of v to 64 bits.
func signExtend(v uint64, width int) uint64 {
	shift := 64 - width
	return uint64(int64(v<<shift) >> shift)
}

// alu executes an ALU or ALU64 instruction.
func (m *Machine) alu(pc int, in insn.Insn) error {
	is64 := in.Class() == insn.ClassALU64
	op := in.ALUOp()
	var src Value
	if op == insn.ALUNeg || op == insn.ALUEnd {
		// No source operand.
	} else if in.SrcIsReg() {
		v, err := m.reg(pc, in.Src)
		if err != nil {
			return err
		}
		src = v
	} else if is64 {
		src = ScalarOf(uint64(int64(in.Imm)))
	} else {
		src = ScalarOf(uint64(uint32(in.Imm)))
	}
	if op == insn.ALUMov {
		return m.setReg(pc, in.Dst, m.mov(in, is64, src))
	}
	dst, err := m.reg(pc, in.Dst)
	if err != nil {
		return err
	}
	if is64 && (op == insn.ALUAdd || op == insn.ALUSub) {
		if v, ok := m.ptrArith(op, dst, src); ok {
			return m.setReg(pc, in.Dst, v)
		}
	}
	a, b := m.addr(dst), m.addr(src)
	if op == insn.ALUEnd {
		return m.setReg(pc, in.Dst, ScalarOf(endian(in, a)))
	}
	var r uint64
	if is64 {
		r = alu64(op, in.Off == insn.OffSigned, a, b)
	} else {
		r = uint64(alu32(op, in.Off == insn.OffSigned, uint32(a), uint32(b)))
	}
	return m.setReg(pc, in.Dst, ScalarOf(r))
}

// mov computes the result of a mov or movsx.
func (m *Machine) mov(in insn.Insn, is64 bool, src Value) Value {
	if is64 && in.Off == 0 {
		return src
	}
	v := m.addr(src)
	switch in.Off {
	case sx8, sx16, sx32:
		v = signExtend(v, int(in.Off))
	}
	if !is64 {
		v = uint64(uint32(v))
	}
	return ScalarOf(v)
}

// ptrArith handles 64-bit add/sub involving a pointer: pointer plus or
// minus a scalar keeps the pointer; the difference of two pointers to one
// object is a scalar. It returns false for anything else, which is then
// computed on addresses.
func (m *Machine) ptrArith(op uint8, dst, src Value) (Value, bool) {
	switch {
	case dst.Kind.IsPointer() && src.Kind == Scalar:
		if op == insn.ALUAdd {
			dst.Off += int64(src.Bits)
		} else {
			dst.Off -= int64(src.Bits)
		}
		return dst, true
	case op == insn.ALUAdd && dst.Kind == Scalar && src.Kind.IsPointer():
		src.Off += int64(dst.Bits)
		return src, true
	}
	return Value{}, false
}

// alu64 is a 64-bit ALU operation on numbers.
func alu64(op uint8, signed bool, a, b uint64) uint64 {
	switch op {
	case insn.ALUAdd:
		return a + b
	case insn.ALUSub:
		return a - b
	case insn.ALUMul:
		return a * b
	case insn.ALUDiv:
		if b == 0 {
			return 0
		}
		if signed {
			return uint64(int64(a) / int64(b))
		}
		return a / b
	case insn.ALUMod:
		if b == 0 {
			return a
		}
		if signed {
			return uint64(int64(a) % int64(b))
		}
		return a % b
	case insn.ALUOr:
		return a | b
	case insn.ALUAnd:
		return a & b
	case insn.ALUXor:
		return a ^ b
	case insn.ALULsh:
		return a << (b & shiftMask64)
	case insn.ALURsh:
		return a >> (b & shiftMask64)
	case insn.ALUArsh:
		return uint64(int64(a) >> (b & shiftMask64))
	case insn.ALUNeg:
		return -a
	}
	return 0
}

// alu32 is a 32-bit ALU operation on numbers.
func alu32(op uint8, signed bool, a, b uint32) uint32 {
	switch op {
	case insn.ALUAdd:
		return a + b
	case insn.ALUSub:
		return a - b
	case insn.ALUMul:
		return a * b
	case insn.ALUDiv:
		if b == 0 {
			return 0
		}
		if signed {
			return uint32(int32(a) / int32(b))
		}
		return a / b
	case insn.ALUMod:
		if b == 0 {
			return a
		}
		if signed {
			return uint32(int32(a) % int32(b))
		}
		return a % b
	case insn.ALUOr:
		return a | b
	case insn.ALUAnd:
		return a & b
	case insn.ALUXor:
		return a ^ b
	case insn.ALULsh:
		return a << (b & shiftMask32)
	case insn.ALURsh:
		return a >> (b & shiftMask32)
	case insn.ALUArsh:
		return uint32(int32(a) >> (b & shiftMask32))
	case insn.ALUNeg:
		return -a
	}
	return 0
}

// endian executes ALU|END (to little or big endian, on a little-endian
// machine) and ALU64|END (unconditional byte swap).
func endian(in insn.Insn, v uint64) uint64 {
	swap := in.Class() == insn.ClassALU64 || in.Op&insn.SrcX == insn.EndToBE
	switch in.Imm {
	case swap16:
		if swap {
			return uint64(bits.ReverseBytes16(uint16(v)))
		}
		return uint64(uint16(v))
	case swap32:
		if swap {
			return uint64(bits.ReverseBytes32(uint32(v)))
		}
		return uint64(uint32(v))
	default:
		if swap {
			return bits.ReverseBytes64(v)
		}
		return v
	}
}

// jmp executes a JMP or JMP32 instruction.
func (m *Machine) jmp(pc int, in insn.Insn) (int, bool, error) {
	is64 := in.Class() == insn.ClassJMP
	switch in.JmpOp() {
	case insn.JmpJA:
		if is64 {
			return pc + int(in.Off) + 1, false, nil
		}
		return pc + int(in.Imm) + 1, false, nil
	case insn.JmpJCOND:
		m.mayGoto--
		if m.mayGoto <= 0 {
			return pc + int(in.Off) + 1, false, nil
		}
		return pc + 1, false, nil
	case insn.JmpExit:
		return m.exit(pc)
	case insn.JmpCall:
		next, err := m.call(pc, in)
		return next, false, err
	}
	dst, err := m.reg(pc, in.Dst)
	if err != nil {
		return 0, false, err
	}
	var b uint64
	if in.SrcIsReg() {
		src, err := m.reg(pc, in.Src)
		if err != nil {
			return 0, false, err
		}
		b = m.addr(src)
	} else {
		b = uint64(int64(in.Imm))
	}
	a := m.addr(dst)
	var taken bool
	if is64 {
		taken = cond(in.JmpOp(), a, b, int64(a), int64(b))
	} else {
		taken = cond(in.JmpOp(), uint64(uint32(a)), uint64(uint32(b)), int64(int32(a)), int64(int32(b)))
	}
	if taken {
		return pc + int(in.Off) + 1, false, nil
	}
	return pc + 1, false, nil
}

// cond evaluates a conditional jump on unsigned (a, b) and signed (sa, sb)
// views of the operands.
func cond(op uint8, a, b uint64, sa, sb int64) bool {
	switch op {
	case insn.JmpJEQ:
		return a == b
	case insn.JmpJNE:
		return a != b
	case insn.JmpJGT:
		return a > b
	case insn.JmpJGE:
		return a >= b
	case insn.JmpJLT:
		return a < b
	case insn.JmpJLE:
		return a <= b
	case insn.JmpJSET:
		return a&b != 0
	case insn.JmpJSGT:
		return sa > sb
	case insn.JmpJSGE:
		return sa >= sb
	case insn.JmpJSLT:
		return sa < sb
	case insn.JmpJSLE:
		return sa <= sb
	}
	return false
}

// exit returns from a subprogram, or ends the run in the main program.
func (m *Machine) exit(pc int) (int, bool, error) {
	r0, err := m.reg(pc, insn.R0)
	if err != nil {
		return 0, false, err
	}
	if len(m.frames) == 1 {
		return 0, true, nil
	}
	callee := m.cur()
	m.frames = m.frames[:len(m.frames)-1]
	caller := m.cur()
	caller.regs[insn.R0] = r0
	for r := insn.R1; r <= insn.R5; r++ {
		caller.regs[r] = Value{}
	}
	return callee.retPC, false, nil
}

// call executes a bpf-to-bpf call or a helper call.
func (m *Machine) call(pc int, in insn.Insn) (int, error) {
	switch in.Src {
	case insn.PseudoCall:
		if len(m.frames) >= maxCallFrames {
			return 0, violation(pc, BadCall, "call depth above %d", maxCallFrames)
		}
		caller := m.cur()
		f := m.newFrame(pc + 1)
		for r := insn.R1; r <= insn.R5; r++ {
			f.regs[r] = caller.regs[r]
		}
		m.frames = append(m.frames, f)
		return pc + int(in.Imm) + 1, nil
	case 0:
		return pc + 1, m.helper(pc, in.Imm)
	default:
		return 0, violation(pc, BadCall, "kfunc calls are not modelled")
	}
}

// helper executes a helper call: it checks the arguments the interpreter
// models and sets r0 to the result chosen by Input.Choose.
func (m *Machine) helper(pc int, id int32) error {
	f := m.cur()
	mapArg := func() (int, error) {
		v, err := m.reg(pc, insn.R1)
		if err != nil {
			return 0, err
		}
		if v.Kind != PtrMap || v.Map < 0 || v.Map >= len(m.maps) {
			return 0, violation(pc, BadCall, "r1 is %v, not a map", v)
		}
		return v.Map, nil
	}
	memArg := func(r uint8, size int) error {
		v, err := m.reg(pc, r)
		if err != nil {
			return err
		}
		return m.checkRange(pc, v, size)
	}
	var r0 Value
	switch id {
	case helperMapLookup, helperMapDelete, helperMapUpdate:
		mi, err := mapArg()
		if err != nil {
			return err
		}
		if err := memArg(insn.R2, m.in.Maps[mi].KeySize); err != nil {
			return err
		}
		if id == helperMapUpdate {
			if err := memArg(insn.R3, m.in.Maps[mi].ValueSize); err != nil {
				return err
			}
			if _, err := m.reg(pc, insn.R4); err != nil {
				return err
			}
		}
		c := m.choose(Choice{PC: pc, Helper: id, Map: mi})
		if id != helperMapLookup {
			r0 = ScalarOf(c)
			break
		}
		if c >= uint64(len(m.maps[mi])) {
			r0 = ScalarOf(0)
		} else {
			r0 = Value{Kind: PtrMapValue, Map: mi, Elem: int(c)}
		}
	case helperPrandomU32, helperSmpProcID, helperGetNumaNode:
		r0 = ScalarOf(uint64(uint32(m.choose(Choice{PC: pc, Helper: id, Map: -1}))))
	case helperKtimeGetNs, helperKtimeBoot:
		r0 = ScalarOf(m.choose(Choice{PC: pc, Helper: id, Map: -1}))
	default:
		return violation(pc, BadCall, "helper %d is not modelled", id)
	}
	f.regs[insn.R0] = r0
	for r := insn.R1; r <= insn.R5; r++ {
		f.regs[r] = Value{}
	}
	return nil
}
