package insn

import (
	"fmt"
	"strings"
	"sync"
	"unicode"

	"github.com/cilium/ebpf/asm"
)

// Operator spellings of the kernel disassembler (kernel/bpf/disasm.c),
// indexed by operation >> 4.
var (
	aluOpText = [16]string{
		"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=",
		"neg", "%=", "^=", "=", "s>>=", "endian", "BUG", "BUG",
	}
	jmpOpText = [16]string{
		"jmp", "==", ">", ">=", "&", "!=", "s>", "s>=",
		"call", "exit", "<", "<=", "s<", "s<=", "(null)", "(null)",
	}
	atomicOpText = map[int32]string{
		AtomicAdd: "add", AtomicAnd: "and", AtomicOr: "or", AtomicXor: "xor",
	}
	// memTypeText and memSXTypeText are indexed by size bits >> 3.
	memTypeText   = [4]string{"u32", "u16", "u8", "u64"}
	memSXTypeText = [4]string{"s32", "s16", "s8", "s64"}
	movSXText     = map[int16]string{8: "(s8)", 16: "(s16)", 32: "(s32)"}
)

const opShift = 4

// maxHelperID is one past the last helper the 6.18 kernel knows
// (cgrp_storage_delete is 211).
const maxHelperID = 212

// HelperName returns the kernel's name of helper id ("bpf_map_lookup_elem")
// or "" when the id is unknown.
func HelperName(id int32) string {
	if id < 0 || id >= maxHelperID {
		return ""
	}
	return helperNames()[id]
}

var helperNames = sync.OnceValue(func() []string {
	names := make([]string, maxHelperID)
	for id := range names {
		s := asm.BuiltinFunc(id).String()
		if !strings.HasPrefix(s, "Fn") {
			continue
		}
		names[id] = "bpf_" + snakeCase(strings.TrimPrefix(s, "Fn"))
	}
	return names
})

// snakeCase turns "MapLookupElem" into "map_lookup_elem"; digits stay with
// the word before them ("Jiffies64" -> "jiffies64").
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// String renders i the way the kernel's verifier log does (without the
// "(%02x) " opcode prefix; see Format). Helper calls are named through
// HelperName.
func (i Insn) String() string { return i.Disasm(nil) }

// Disasm renders i like String, naming calls with callName when it returns
// a non-empty name (for kfuncs, say); a nil callName uses HelperName for
// helpers only.
func (i Insn) Disasm(callName func(Insn) string) string {
	if i.Filler {
		return "(ld_imm64 second half)"
	}
	switch i.Class() {
	case ClassALU, ClassALU64:
		return i.disasmALU()
	case ClassSTX:
		return i.disasmSTX()
	case ClassST:
		if i.Mode() == ModeMEM {
			return fmt.Sprintf("*(%s *)(r%d %+d) = %d", memTypeText[i.Op&0x18>>3], i.Dst, i.Off, i.Imm)
		}
		return fmt.Sprintf("BUG_st_%02x", i.Op)
	case ClassLDX:
		switch i.Mode() {
		case ModeMEM:
			return fmt.Sprintf("r%d = *(%s *)(r%d %+d)", i.Dst, memTypeText[i.Op&0x18>>3], i.Src, i.Off)
		case ModeMEMSX:
			return fmt.Sprintf("r%d = *(%s *)(r%d %+d)", i.Dst, memSXTypeText[i.Op&0x18>>3], i.Src, i.Off)
		}
		return fmt.Sprintf("BUG_ldx_%02x", i.Op)
	case ClassLD:
		return i.disasmLD()
	default:
		return i.disasmJmp(callName)
	}
}

func regPrefix(class uint8) byte {
	if class == ClassALU || class == ClassJMP32 {
		return 'w'
	}
	return 'r'
}

func (i Insn) disasmALU() string {
	class := i.Class()
	r := regPrefix(class)
	op := i.ALUOp()
	switch {
	case op == ALUEnd:
		kind := "le"
		switch {
		case class == ClassALU64:
			kind = "bswap"
		case i.Op&SrcX == EndToBE:
			kind = "be"
		}
		return fmt.Sprintf("r%d = %s%d r%d", i.Dst, kind, i.Imm, i.Dst)
	case op == ALUNeg:
		return fmt.Sprintf("%c%d = -%c%d", r, i.Dst, r, i.Dst)
	case class == ClassALU64 && op == ALUMov && i.SrcIsReg() && i.Off == OffAddrSpaceCast:
		return fmt.Sprintf("r%d = addr_space_cast(r%d, %d, %d)", i.Dst, i.Src, uint32(i.Imm)>>16, uint16(i.Imm))
	case class == ClassALU64 && op == ALUMov && i.SrcIsReg() && i.Off == OffPercpuAddr:
		return fmt.Sprintf("r%d = &(void __percpu *)(r%d)", i.Dst, i.Src)
	}
	opText := aluOpText[op>>opShift]
	if (op == ALUDiv || op == ALUMod) && i.Off == OffSigned {
		opText = "s" + opText
	}
	if i.SrcIsReg() {
		sx := ""
		if op == ALUMov {
			sx = movSXText[i.Off]
		}
		return fmt.Sprintf("%c%d %s %s%c%d", r, i.Dst, opText, sx, r, i.Src)
	}
	return fmt.Sprintf("%c%d %s %d", r, i.Dst, opText, i.Imm)
}

func (i Insn) disasmSTX() string {
	ty := memTypeText[i.Op&0x18>>3]
	switch i.Mode() {
	case ModeMEM:
		return fmt.Sprintf("*(%s *)(r%d %+d) = r%d", ty, i.Dst, i.Off, i.Src)
	case ModeATOMIC:
	default:
		return fmt.Sprintf("BUG_%02x", i.Op)
	}
	wide := ""
	if i.Op&0x18 == SizeDW {
		wide = "64"
	}
	switch {
	case i.Imm == AtomicCmpXchg:
		return fmt.Sprintf("r0 = atomic%s_cmpxchg((%s *)(r%d %+d), r0, r%d)", wide, ty, i.Dst, i.Off, i.Src)
	case i.Imm == AtomicXchg:
		return fmt.Sprintf("r%d = atomic%s_xchg((%s *)(r%d %+d), r%d)", i.Src, wide, ty, i.Dst, i.Off, i.Src)
	case i.Imm == AtomicLoadAcq:
		return fmt.Sprintf("r%d = load_acquire((%s *)(r%d %+d))", i.Dst, ty, i.Src, i.Off)
	case i.Imm == AtomicStoreRel:
		return fmt.Sprintf("store_release((%s *)(r%d %+d), r%d)", ty, i.Dst, i.Off, i.Src)
	}
	name, ok := atomicOpText[i.Imm&^AtomicFetch]
	if !ok {
		return fmt.Sprintf("BUG_%02x", i.Op)
	}
	if i.Imm&AtomicFetch != 0 {
		return fmt.Sprintf("r%d = atomic%s_fetch_%s((%s *)(r%d %+d), r%d)", i.Src, wide, name, ty, i.Dst, i.Off, i.Src)
	}
	return fmt.Sprintf("lock *(%s *)(r%d %+d) %s r%d", ty, i.Dst, i.Off, aluOpText[i.Imm>>opShift], i.Src)
}

func (i Insn) disasmLD() string {
	ty := memTypeText[i.Op&0x18>>3]
	switch i.Mode() {
	case ModeABS:
		return fmt.Sprintf("r0 = *(%s *)skb[%d]", ty, i.Imm)
	case ModeIND:
		return fmt.Sprintf("r0 = *(%s *)skb[r%d + %d]", ty, i.Src, i.Imm)
	}
	if !i.IsLdImm64() {
		return fmt.Sprintf("BUG_ld_%02x", i.Op)
	}
	switch i.Src {
	case PseudoMapFD, PseudoMapIdx:
		return fmt.Sprintf("r%d = map[id:%d]", i.Dst, i.Imm)
	case PseudoMapValue, PseudoMapIdxValue:
		return fmt.Sprintf("r%d = map[id:%d][0]+%d", i.Dst, i.Imm, uint32(i.Imm2))
	}
	return fmt.Sprintf("r%d = 0x%x", i.Dst, i.Imm64())
}

func (i Insn) disasmJmp(callName func(Insn) string) string {
	class := i.Class()
	op := i.JmpOp()
	switch {
	case op == JmpCall:
		if i.Src == PseudoCall {
			return fmt.Sprintf("call pc%+d", i.Imm)
		}
		name := ""
		if callName != nil {
			name = callName(i)
			if i.Src == PseudoKfuncCall {
				// The verifier's log names a kfunc by its BTF type
				// (disasm_kfunc_name), which for id 0 is void's empty
				// name: "call #0".
				return fmt.Sprintf("call %s#%d", name, i.Imm)
			}
		}
		if name == "" && i.Src == 0 {
			name = HelperName(i.Imm)
		}
		if name == "" {
			name = "unknown"
			if i.Src == PseudoKfuncCall {
				name = "kernel-function"
			}
		}
		return fmt.Sprintf("call %s#%d", name, i.Imm)
	case op == JmpExit:
		return "exit"
	case op == JmpJA && class == ClassJMP32:
		return fmt.Sprintf("gotol pc%+d", i.Imm)
	case op == JmpJA:
		return fmt.Sprintf("goto pc%+d", i.Off)
	case op == JmpJCOND && class == ClassJMP && i.Src == 0:
		// Only BPF_MAY_GOTO has a name; any other source prints as a
		// conditional jump whose operator bpf_jmp_string lacks.
		return fmt.Sprintf("may_goto pc%+d", i.Off)
	}
	r := regPrefix(class)
	if i.SrcIsReg() {
		return fmt.Sprintf("if %c%d %s %c%d goto pc%+d", r, i.Dst, jmpOpText[op>>opShift], r, i.Src, i.Off)
	}
	return fmt.Sprintf("if %c%d %s 0x%x goto pc%+d", r, i.Dst, jmpOpText[op>>opShift], uint32(i.Imm), i.Off)
}

// Format renders one verifier-log instruction line, "idx: (op) text",
// as the kernel prints it before simulating the instruction. An encoding
// print_bpf_insn cannot name prints as "idx: BUG_...", with no opcode in
// front.
func Format(idx int, i Insn) string {
	text := i.String()
	if strings.HasPrefix(text, "BUG_") {
		return fmt.Sprintf("%d: %s", idx, text)
	}
	return fmt.Sprintf("%d: (%02x) %s", idx, i.Op, text)
}
