package insn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/cilium/ebpf/asm"
)

// Decoding errors. They are wrapped with the position at fault.
var (
	// ErrBadLength means the bytecode is not a whole number of 8-byte slots.
	ErrBadLength = errors.New("bytecode length is not a multiple of 8")
	// ErrTruncatedLdImm64 means an ld_imm64 starts in the last slot.
	ErrTruncatedLdImm64 = errors.New("ld_imm64 is missing its second slot")
)

// Field positions inside a raw little-endian slot.
const (
	slotOp   = 0
	slotRegs = 1
	slotOff  = 2
	slotImm  = 4
	regMask  = 0x0f
	srcShift = 4
)

// Decode turns little-endian raw bytecode into instructions numbered like
// the kernel numbers them: one entry per 8-byte slot. An ld_imm64 fills two
// entries: the first carries Imm (low half) and Imm2 (high half), the
// second is marked Filler and keeps its raw fields so that validation can
// reject a malformed second half with the kernel's message.
func Decode(raw []byte) ([]Insn, error) {
	if len(raw)%Slot != 0 {
		return nil, fmt.Errorf("decode %d bytes: %w", len(raw), ErrBadLength)
	}
	n := len(raw) / Slot
	prog := make([]Insn, n)
	for i := 0; i < n; i++ {
		prog[i] = decodeSlot(raw[i*Slot : (i+1)*Slot])
	}
	for i := 0; i < n; i++ {
		if !prog[i].IsLdImm64() {
			continue
		}
		if i+1 == n {
			return nil, fmt.Errorf("decode insn %d: %w", i, ErrTruncatedLdImm64)
		}
		prog[i].Imm2 = prog[i+1].Imm
		prog[i+1].Filler = true
		i++
	}
	return prog, nil
}

func decodeSlot(s []byte) Insn {
	return Insn{
		Op:  s[slotOp],
		Dst: s[slotRegs] & regMask,
		Src: s[slotRegs] >> srcShift,
		Off: int16(binary.LittleEndian.Uint16(s[slotOff:])),
		Imm: int32(binary.LittleEndian.Uint32(s[slotImm:])),
	}
}

// Encode is the inverse of Decode: it renders prog as little-endian raw
// bytecode. A filler entry is written from its own fields, except that its
// imm is the high half of the preceding ld_imm64.
func Encode(prog []Insn) []byte {
	out := make([]byte, len(prog)*Slot)
	for i, in := range prog {
		s := out[i*Slot : (i+1)*Slot]
		imm := in.Imm
		if in.Filler && i > 0 && prog[i-1].IsLdImm64() {
			imm = prog[i-1].Imm2
		}
		s[slotOp] = in.Op
		s[slotRegs] = in.Dst&regMask | in.Src<<srcShift
		binary.LittleEndian.PutUint16(s[slotOff:], uint16(in.Off))
		binary.LittleEndian.PutUint32(s[slotImm:], uint32(imm))
	}
	return out
}

// FromAsm converts cilium/ebpf instructions to kernel-numbered instructions
// through their raw encoding, so the result is exactly what the kernel
// would be given. Constants are kept as the loader left them: ld_imm64 map
// references carry the map index (and value offset), bpf-to-bpf calls and
// PseudoFunc loads their resolved relative offsets. What cilium/ebpf's
// encoding drops is kept too (see Marshal).
func FromAsm(insns asm.Instructions) ([]Insn, error) {
	var buf bytes.Buffer
	for i, ins := range insns {
		start := buf.Len()
		enc := ins
		if HelperLostInMarshal(ins) {
			enc.Constant = 0
		}
		if _, err := enc.Marshal(&buf, binary.LittleEndian); err != nil {
			return nil, fmt.Errorf("encode instruction %d (%v): %w", i, ins, err)
		}
		restoreLostFields(buf.Bytes()[start:], ins)
	}
	return Decode(buf.Bytes())
}

// Marshal writes the little-endian encoding of insns to w as
// asm.Instructions.Marshal does (resolving references, filling in the
// offsets of calls and jumps in insns), with what that encoding drops or
// refuses kept as the instructions hold it:
//   - the off field of ALU instructions: cilium/ebpf writes one only for
//     the opcodes it names itself (sdiv, smod, movsx) while Unmarshal keeps
//     what the object had, so an address-space cast (BPF_ALU64|BPF_MOV|BPF_X
//     with off 1, the arena's cast between user and kernel addresses) would
//     reach the kernel as a plain mov, and reserved bits in off would be
//     lost (OffsetLostInMarshal);
//   - helper numbers that are no Linux constant of cilium/ebpf's platform
//     encoding, which it refuses to encode: the placeholders loaders patch
//     before a load (a "call -1") or leave in dead code, which the kernel
//     refuses only on a path that reaches them (HelperLostInMarshal).
func Marshal(insns asm.Instructions, w io.Writer) error {
	var held []int
	for i := range insns {
		if HelperLostInMarshal(insns[i]) {
			held = append(held, i)
		}
	}
	saved := make([]int64, len(held))
	for k, i := range held {
		saved[k], insns[i].Constant = insns[i].Constant, 0
	}
	var buf bytes.Buffer
	err := insns.Marshal(&buf, binary.LittleEndian)
	for k, i := range held {
		insns[i].Constant = saved[k]
	}
	if err != nil {
		return err
	}
	raw := buf.Bytes()
	pos := 0
	for _, ins := range insns {
		if pos+Slot > len(raw) {
			break
		}
		restoreLostFields(raw[pos:], ins)
		pos += int(ins.Size())
	}
	_, err = w.Write(raw)
	return err
}

// restoreLostFields writes into raw, which starts with the encoding of
// ins, what asm.Instruction.Marshal dropped or was kept from writing: the
// off field of an ALU instruction, a placeholder helper number.
func restoreLostFields(raw []byte, ins asm.Instruction) {
	if OffsetLostInMarshal(ins) {
		binary.LittleEndian.PutUint16(raw[slotOff:], uint16(ins.Offset))
	}
	if HelperLostInMarshal(ins) {
		binary.LittleEndian.PutUint32(raw[slotImm:], uint32(ins.Constant))
	}
}

// helperPlatformBits are the bits of a helper number cilium/ebpf's
// platform encoding reserves (internal/platform: a tag in bits 28-30, zero
// for Linux).
const helperPlatformBits = 0x7 << 28

// HelperLostInMarshal reports whether asm.Instruction.Marshal refuses
// ins: a helper call whose number carries bits of another platform's tag.
func HelperLostInMarshal(ins asm.Instruction) bool {
	return ins.IsBuiltinCall() && uint32(ins.Constant)&helperPlatformBits != 0
}

// OffsetLostInMarshal reports whether asm.Instruction.Marshal drops the
// off field of ins: a non-zero off of an ALU instruction whose cilium/ebpf
// opcode does not itself encode one.
func OffsetLostInMarshal(ins asm.Instruction) bool {
	if !ins.OpCode.Class().IsALU() || ins.Offset == 0 {
		return false
	}
	switch ins.OpCode.ALUOp() {
	case asm.SDiv, asm.SMod, asm.MovSX8, asm.MovSX16, asm.MovSX32:
		return false
	}
	return true
}
