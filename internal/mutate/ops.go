package mutate

import (
	"math"
	"slices"
	"sync"

	"github.com/vercheck/vercheck/insn"
)

// An operator lists the edits it can make at one instruction of a program.
// Every operator is a pure function of the program and its Env: the
// random choice among its edits is the driver's (see Mutate).
type operator struct {
	name  string
	edits func(env Env, prog []insn.Insn, i int) []edit
}

// local turns an operator that needs nothing but the program into one.
func local(edits func(prog []insn.Insn, i int) []edit) func(Env, []insn.Insn, int) []edit {
	return func(_ Env, prog []insn.Insn, i int) []edit { return edits(prog, i) }
}

// operators are the mutation operators the driver draws from. Each is
// aimed at one family of verifier rules, see its function.
var operators = []operator{
	{"sign-extending load", rewrites(signExtLoad)},
	{"sign-extending mov", rewrites(signExtMov)},
	{"jump width", rewrites(jumpWidth)},
	{"jump condition", rewrites(flipCondition)},
	{"immediate", rewrites(edgeImmediates)},
	{"offset", rewrites(edgeOffsets)},
	{"registers", rewrites(swapRegisters)},
	{"alu width", rewrites(aluWidth)},
	{"spill width", rewrites(spillWidth)},
	{"stack slot", rewrites(stackSlot)},
	{"frame pointer argument", rewrites(frameArgument)},
	{"null check removed", rewrites(removeNullCheck)},
	{"bounds off by one", local(boundsOffByOne)},
	{"alu operation", rewrites(aluOperation)},
	{"source operand", rewrites(sourceOperand)},
	{"access size", rewrites(accessSize)},
	{"load or store", rewrites(loadOrStore)},
	{"atomic operation", rewrites(atomicOperation)},
	{"helper", rewrites(otherHelper)},
	{"allowed helper", allowedHelper},
	{"type kfunc", typeKfunc},
	{"clobber operand", local(clobberOperand)},
	{"spill round trip", local(spillRoundTrip)},
	{"path-dependent base", local(pathDependentBase)},
	{"map", otherMap},
	{"map value offset", mapValueOffset},
	{"callee", local(otherCallee)},
	{"kfunc", otherKfunc},
	{"byte swap", local(byteSwap)},
	{"may_goto", local(mayGoto)},
	{"narrow access", rewrites(narrowAccess)},
	{"pointer store", local(pointerStore)},
	{"atomic access", local(atomicAccess)},
	{"pointer arithmetic", local(pointerALU)},
	{"variable base offset", local(varOffsetBase)},
	{"swap", local(swapAdjacent)},
	{"range guard", rangeGuard},
	{"scalar edge alu", local(scalarEdgeALU)},
	{"partial spill", local(partialSpill)},
	{"variable stack offset", local(varStackAccess)},
	{"call argument", local(callArgument)},
	{"call again", local(callAgain)},
	{"move", local(moveInsn)},
	{"variable argument offset", local(varArgOffset)},
	{"legacy packet load", local(legacyPacketLoad)},
	{"call repeat", local(callRepeat)},
	{"call drop", local(callDrop)},
	{"call block move", local(callBlockMove)},
	{"call insert", callInsert},
	{"early exit", local(earlyExit)},
	{"return value", local(returnValue)},
	{"pointer return", local(pointerReturn)},
	{"stack object argument", local(stackObjectArg)},
	{"stack object overwrite", local(stackObjectOverwrite)},
	{"variable constant argument", local(varConstArg)},
	{"argument swap", local(argSwap)},
	{"address space cast", local(addrSpaceCast)},
	{"loop wrap", local(loopWrap)},
	{"callback entry", local(callbackEntry)},
	{"tail call insert", tailCallInsert},
	{"path split", local(pathSplit)},
	{"loaded pointer argument", loadedPointerArg},
	{"goto +0", local(insertGotoZero)},
	{"jump stretch", local(jumpStretch)},
	{"insert", local(insertCopy)},
	{"delete", local(deleteInsn)},
	{"bit flip", rewrites(bitFlip)},
	{"opcode", rewrites(otherOpcode)},
}

// Operators returns the names of the mutation operators, in the order
// Mutate draws them from.
func Operators() []string {
	names := make([]string, len(operators))
	for i, op := range operators {
		names[i] = op.name
	}
	return names
}

// LoadOperators returns the names of the operators that change what a
// mutant is loaded with rather than its instructions, and that -ops may
// name: the program type, the sleepable flag, load flags, map definitions
// and BTF, read-only data, function BTF and the attach target.
func LoadOperators() []string {
	return []string{ProgTypeOperator, SleepableOperator, LoadFlagsOperator, MapDefOperator, MapBTFOperator, RodataOperator, FuncBTFOperator, AttachTargetOperator}
}

// ResourceOperators returns the names of the operators aimed at the
// kernel's rules for resources and calls (resources.go).
func ResourceOperators() []string {
	return []string{"call repeat", "call drop", "call block move", "call insert", "early exit", "return value",
		"pointer return", "stack object argument", "stack object overwrite", "variable constant argument", "argument swap",
		"address space cast", "loop wrap", "callback entry", "tail call insert", "path split", "loaded pointer argument"}
}

// rewrites turns an instruction rewriter into an operator: each variant
// replaces instruction i in place. ld_imm64s that refer to maps or
// functions, and the second halves of ld_imm64s, are never rewritten: the
// loader owns them.
func rewrites(variants func(in insn.Insn) []insn.Insn) func(Env, []insn.Insn, int) []edit {
	return func(_ Env, prog []insn.Insn, i int) []edit {
		in := prog[i]
		if in.Filler || (in.IsLdImm64() && in.Src != 0) {
			return nil
		}
		var out []edit
		for _, v := range variants(in) {
			if v != in {
				out = append(out, rewrite(i, v))
			}
		}
		return out
	}
}

// Sign-extension widths of movsx (the off field of a MOV X).
var movsxWidths = []int16{8, 16, 32}

// signExtLoad swaps a plain load for a sign-extending one of the same size
// and back (cpu v4 LDX MEMSX): the verifier must then widen the loaded
// range to negative values.
func signExtLoad(in insn.Insn) []insn.Insn {
	if in.Class() != insn.ClassLDX || in.SizeBytes() == 8 {
		return nil
	}
	switch in.Mode() {
	case insn.ModeMEM:
		in.Op = in.Op&^0xe0 | insn.ModeMEMSX
	case insn.ModeMEMSX:
		in.Op = in.Op&^0xe0 | insn.ModeMEM
	default:
		return nil
	}
	return []insn.Insn{in}
}

// signExtMov turns a register mov into a sign-extending one of each width
// (cpu v4 MOVSX, the off field), or a sign-extending one back into a plain
// mov.
func signExtMov(in insn.Insn) []insn.Insn {
	isMov := (in.Class() == insn.ClassALU || in.Class() == insn.ClassALU64) && in.ALUOp() == insn.ALUMov && in.SrcIsReg()
	if !isMov {
		return nil
	}
	if in.Off != 0 {
		in.Off = 0
		return []insn.Insn{in}
	}
	var out []insn.Insn
	for _, w := range movsxWidths {
		if w == 32 && in.Class() == insn.ClassALU {
			continue // a 32-bit movsx of 32 bits is no instruction
		}
		v := in
		v.Off = w
		out = append(out, v)
	}
	return out
}

// jumpWidth moves a conditional jump between the 64-bit and the 32-bit
// class, and a goto between its 16-bit (goto) and 32-bit (gotol) forms.
func jumpWidth(in insn.Insn) []insn.Insn {
	switch {
	case in.IsConditional():
		in.Op ^= insn.ClassJMP ^ insn.ClassJMP32
		return []insn.Insn{in}
	case in.Op == insn.ClassJMP|insn.JmpJA:
		in.Op, in.Imm, in.Off = insn.ClassJMP32|insn.JmpJA, int32(in.Off), 0
		return []insn.Insn{in}
	case in.Op == insn.ClassJMP32|insn.JmpJA && in.Imm >= math.MinInt16 && in.Imm <= math.MaxInt16:
		in.Op, in.Off, in.Imm = insn.ClassJMP|insn.JmpJA, int16(in.Imm), 0
		return []insn.Insn{in}
	}
	return nil
}

// Related jump conditions: the negation, the same comparison with the
// other strictness, and the same comparison with the other signedness.
var (
	negatedCond = map[uint8]uint8{
		insn.JmpJEQ: insn.JmpJNE, insn.JmpJNE: insn.JmpJEQ,
		insn.JmpJGT: insn.JmpJLE, insn.JmpJLE: insn.JmpJGT,
		insn.JmpJGE: insn.JmpJLT, insn.JmpJLT: insn.JmpJGE,
		insn.JmpJSGT: insn.JmpJSLE, insn.JmpJSLE: insn.JmpJSGT,
		insn.JmpJSGE: insn.JmpJSLT, insn.JmpJSLT: insn.JmpJSGE,
		insn.JmpJSET: insn.JmpJEQ,
	}
	strictnessCond = map[uint8]uint8{
		insn.JmpJGT: insn.JmpJGE, insn.JmpJGE: insn.JmpJGT,
		insn.JmpJLT: insn.JmpJLE, insn.JmpJLE: insn.JmpJLT,
		insn.JmpJSGT: insn.JmpJSGE, insn.JmpJSGE: insn.JmpJSGT,
		insn.JmpJSLT: insn.JmpJSLE, insn.JmpJSLE: insn.JmpJSLT,
	}
	signednessCond = map[uint8]uint8{
		insn.JmpJGT: insn.JmpJSGT, insn.JmpJSGT: insn.JmpJGT,
		insn.JmpJGE: insn.JmpJSGE, insn.JmpJSGE: insn.JmpJGE,
		insn.JmpJLT: insn.JmpJSLT, insn.JmpJSLT: insn.JmpJLT,
		insn.JmpJLE: insn.JmpJSLE, insn.JmpJSLE: insn.JmpJLE,
	}
)

// flipCondition replaces a conditional jump's condition by its negation
// (the branches swap), the other strictness (an off-by-one in a bounds
// check) and the other signedness (a signed check of an unsigned bound).
func flipCondition(in insn.Insn) []insn.Insn {
	if !in.IsConditional() {
		return nil
	}
	op := in.JmpOp()
	var out []insn.Insn
	for _, table := range []map[uint8]uint8{negatedCond, strictnessCond, signednessCond} {
		if to, ok := table[op]; ok {
			v := in
			v.Op = in.Op&^0xf0 | to
			out = append(out, v)
		}
	}
	return out
}

// hasImmediate reports whether in's imm is an operand the program chose:
// an ALU or jump constant, a stored constant or a plain 64-bit constant.
// Shifts are included: an out-of-range shift is one of the cases.
func hasImmediate(in insn.Insn) bool {
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64:
		return !in.SrcIsReg() && in.ALUOp() != insn.ALUNeg && in.ALUOp() != insn.ALUEnd
	case insn.ClassJMP, insn.ClassJMP32:
		return in.IsConditional() && !in.SrcIsReg()
	case insn.ClassST:
		return in.Mode() == insn.ModeMEM
	case insn.ClassLD:
		return in.IsLdImm64() && in.Src == 0
	}
	return false
}

// edgeImmediates sets an immediate to each edge value: 0, 1, -1, the
// access sizes, the int32 extremes and the value's neighbours.
func edgeImmediates(in insn.Insn) []insn.Insn {
	if !hasImmediate(in) {
		return nil
	}
	values := []int32{0, 1, -1, 2, 4, 8, math.MaxInt32, math.MinInt32}
	return withValues(in, in.Imm, values, func(c *insn.Insn, v int32) { c.Imm = v })
}

// withValues returns a copy of in for each of values and for each
// neighbour of cur (cur+1 and cur-1, where they do not overflow), the
// value put in place by set.
func withValues[T int16 | int32](in insn.Insn, cur T, values []T, set func(*insn.Insn, T)) []insn.Insn {
	if cur+1 > cur {
		values = append(values, cur+1)
	}
	if cur-1 < cur {
		values = append(values, cur-1)
	}
	out := make([]insn.Insn, 0, len(values))
	for _, v := range values {
		c := in
		set(&c, v)
		out = append(out, c)
	}
	return out
}

// isMemAccess reports whether in reads or writes memory through a
// register and an offset (plain, sign-extending and atomic accesses).
func isMemAccess(in insn.Insn) bool {
	switch in.Class() {
	case insn.ClassLDX:
		return in.Mode() == insn.ModeMEM || in.Mode() == insn.ModeMEMSX
	case insn.ClassST:
		return in.Mode() == insn.ModeMEM
	case insn.ClassSTX:
		return in.Mode() == insn.ModeMEM || in.Mode() == insn.ModeATOMIC
	}
	return false
}

// edgeOffsets sets a memory access's offset to the edge values (0, 1, -1,
// plus and minus the access size, the int16 extremes, its neighbours),
// and a jump's offset to its neighbours and to 0 and -1.
func edgeOffsets(in insn.Insn) []insn.Insn {
	var values []int16
	switch {
	case isMemAccess(in):
		size := int16(in.SizeBytes())
		values = []int16{0, 1, -1, size, -size, in.Off + size, in.Off - size, math.MaxInt16, math.MinInt16}
	case in.IsConditional() || in.Op == insn.ClassJMP|insn.JmpJA:
		values = []int16{0, -1}
	default:
		return nil
	}
	return withValues(in, in.Off, values, func(c *insn.Insn, v int16) { c.Off = v })
}

// operandRegs returns pointers to the register operands of in that the
// program chose: the destination and, for register forms, the source.
// Calls and exits have none.
func operandRegs(in *insn.Insn) []*uint8 {
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64:
		if in.SrcIsReg() {
			return []*uint8{&in.Dst, &in.Src}
		}
		return []*uint8{&in.Dst}
	case insn.ClassJMP, insn.ClassJMP32:
		if !in.IsConditional() {
			return nil
		}
		if in.SrcIsReg() {
			return []*uint8{&in.Dst, &in.Src}
		}
		return []*uint8{&in.Dst}
	case insn.ClassLDX, insn.ClassSTX:
		if isMemAccess(*in) {
			return []*uint8{&in.Dst, &in.Src}
		}
	case insn.ClassST:
		if isMemAccess(*in) {
			return []*uint8{&in.Dst}
		}
	}
	return nil
}

// swapRegisters exchanges an instruction's two register operands, and
// replaces each operand by each other register r0-r9 (a register the
// program did not prepare for this use: uninitialised, a scalar where a
// pointer was, a pointer of another kind).
func swapRegisters(in insn.Insn) []insn.Insn {
	regs := operandRegs(&in)
	if len(regs) == 0 {
		return nil
	}
	var out []insn.Insn
	if len(regs) == 2 {
		v := in
		v.Dst, v.Src = in.Src, in.Dst
		out = append(out, v)
	}
	for k := range regs {
		for r := insn.R0; r < insn.R10; r++ {
			v := in
			*operandRegs(&v)[k] = r
			out = append(out, v)
		}
	}
	return out
}

// aluWidth moves an ALU instruction between the 32-bit and the 64-bit
// class (for a byte swap: between to-endian and the unconditional bswap).
func aluWidth(in insn.Insn) []insn.Insn {
	if in.Class() != insn.ClassALU && in.Class() != insn.ClassALU64 {
		return nil
	}
	in.Op ^= insn.ClassALU ^ insn.ClassALU64
	return []insn.Insn{in}
}

// Access size codes, in byte order.
var sizeCodes = []uint8{insn.SizeB, insn.SizeH, insn.SizeW, insn.SizeDW}

// isStackAccess reports whether in accesses memory through the frame
// pointer itself.
func isStackAccess(in insn.Insn) bool {
	if !isMemAccess(in) || in.Mode() == insn.ModeATOMIC {
		return false
	}
	if in.Class() == insn.ClassLDX {
		return in.Src == insn.R10
	}
	return in.Dst == insn.R10
}

// spillWidth changes the size of a stack access: a spill or fill of part
// of a register, of a pointer, or across slots.
func spillWidth(in insn.Insn) []insn.Insn {
	if !isStackAccess(in) {
		return nil
	}
	return otherSizes(in)
}

// otherSizes returns in with each other access size (no 8-byte
// sign-extending load).
func otherSizes(in insn.Insn) []insn.Insn {
	var out []insn.Insn
	for _, sz := range sizeCodes {
		if sz == in.Op&0x18 || (in.Mode() == insn.ModeMEMSX && sz == insn.SizeDW) {
			continue
		}
		v := in
		v.Op = in.Op&^0x18 | sz
		out = append(out, v)
	}
	return out
}

// stackSlotSize is the size of one stack slot.
const stackSlotSize = 8

// stackSlot moves a stack access one slot up or down: onto a slot the
// program did not initialise, or above the frame.
func stackSlot(in insn.Insn) []insn.Insn {
	if !isStackAccess(in) {
		return nil
	}
	up, down := in, in
	up.Off += stackSlotSize
	down.Off -= stackSlotSize
	return []insn.Insn{up, down}
}

// frameArgument puts r10 itself where the program used another register
// as a source: the frame pointer as an ALU operand, a stored value or a
// compared register.
func frameArgument(in insn.Insn) []insn.Insn {
	switch {
	case (in.Class() == insn.ClassALU || in.Class() == insn.ClassALU64) && in.SrcIsReg(),
		in.IsConditional() && in.SrcIsReg(),
		in.Class() == insn.ClassSTX && isMemAccess(in):
		if in.Src == insn.R10 {
			return nil
		}
		in.Src = insn.R10
		return []insn.Insn{in}
	}
	return nil
}

// removeNullCheck removes a comparison of a register with zero, keeping
// the path on which the register was known to be non-zero: "if r == 0
// goto" falls through always, "if r != 0 goto" always jumps.
func removeNullCheck(in insn.Insn) []insn.Insn {
	if !in.IsConditional() || in.SrcIsReg() || in.Imm != 0 {
		return nil
	}
	switch in.JmpOp() {
	case insn.JmpJEQ:
		return []insn.Insn{gotoInsn(0)}
	case insn.JmpJNE:
		return []insn.Insn{gotoInsn(in.Off)}
	}
	return nil
}

// gotoInsn is "goto pc+off".
func gotoInsn(off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | insn.JmpJA, Off: off}
}

// boundsWindow is how far before a register comparison the constant
// added to one of its registers is looked for.
const boundsWindow = 3

// boundsOffByOne changes by one the constant added to a register that a
// following register comparison uses: the "data + N > data_end" packet
// check, or an index compared with a limit.
func boundsOffByOne(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Class() != insn.ClassALU64 || in.ALUOp() != insn.ALUAdd || in.SrcIsReg() {
		return nil
	}
	for k := i + 1; k < len(prog) && k <= i+boundsWindow; k++ {
		c := prog[k]
		if c.IsConditional() && c.SrcIsReg() && (c.Dst == in.Dst || c.Src == in.Dst) {
			more, less := in, in
			more.Imm++
			less.Imm--
			return []edit{rewrite(i, more), rewrite(i, less)}
		}
	}
	return nil
}

// insertGotoZero inserts "goto +0" before instruction i: a jump that
// changes nothing but adds a prune point and a jump history entry.
func insertGotoZero(prog []insn.Insn, i int) []edit {
	if prog[i].Filler {
		return nil
	}
	return []edit{insertion(i, gotoInsn(0))}
}

// jumpStretch stretches the forward jump at i to the edge of its 16-bit
// offset: inert fillers inserted right after it leave it a few
// instructions short of S16_MAX,
// so that the kernel's rewrites of the instructions it spans after the
// walk (context loads, divisions, inlined helpers and map lookups) take
// it to the limit or past it, where bpf_patch_insn_single refuses the
// patch ("insn N cannot be patched due to 16-bit range"). Only a program
// over 32,767 instructions meets that refusal; no seed is that long. The
// filler, "gotol +0", changes nothing, and unlike "goto +0"
// opt_remove_nops keeps it, so the span stays as long after the dead-code
// passes (a conditional filler such as "if r10 == 0 goto +0" is not
// decided by the verifier: each would push a branch, and 8,192 of them
// are "The sequence of 8193 jumps is too complex"). Every path through the fillers walks them all, and a
// program whose paths walk a million instructions is refused for that:
// only forward jumps among the first stretchWithin instructions, which
// few paths reach yet, are stretched, and the fillers go after them.
func jumpStretch(prog []insn.Insn, i int) []edit {
	in := prog[i]
	rel, ok := in.Relative()
	if i >= stretchWithin || !ok || !in.IsJmpClass() || in.IsPseudoCall() || in.Op == insn.ClassJMP32|insn.JmpJA || rel <= 0 {
		return nil
	}
	limit, at := math.MaxInt16-int(rel), i+1
	var out []edit
	for _, short := range stretchShorts {
		if n := limit - short; n > 0 {
			out = append(out, insertion(at, inertFillers()[:n]...))
		}
	}
	return out
}

// stretchWithin bounds where jumpStretch finds its jumps.
const stretchWithin = 32

// stretchShorts are how far short of the limit jumpStretch leaves a jump.
var stretchShorts = []int{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64}

// inertFillers is jumpStretch's filler, as many as a jump may span; the
// edits share it (an insertion copies what it inserts).
var inertFillers = sync.OnceValue(func() []insn.Insn {
	return slices.Repeat([]insn.Insn{{Op: insn.ClassJMP32 | insn.JmpJA}}, -math.MinInt16)
})

// insertCopy inserts before instruction i a copy of each of its nearest
// straight-line neighbours: a repeated store, load or computation that
// the program's own dataflow did not expect.
func insertCopy(prog []insn.Insn, i int) []edit {
	if prog[i].Filler {
		return nil
	}
	var out []edit
	for _, k := range []int{i - 1, i + 1} {
		if k < 0 || k >= len(prog) || prog[k].Filler || prog[k].IsLdImm64() || prog[k].IsJmpClass() {
			continue
		}
		out = append(out, insertion(i, prog[k]))
	}
	return out
}

// swapAdjacent exchanges instruction i with the next one when neither
// jumps nor is an ld_imm64: a lock released before it is taken, a
// reference used after its release, a pointer dereferenced before its
// check, an argument set after the call that reads it.
func swapAdjacent(prog []insn.Insn, i int) []edit {
	if i+1 >= len(prog) || !swappable(prog[i]) || !swappable(prog[i+1]) || prog[i] == prog[i+1] {
		return nil
	}
	return []edit{{at: i, del: 2, repl: []insn.Insn{prog[i+1], prog[i]}}}
}

// swappable reports whether in may trade places with a neighbour: no
// second half or ld_imm64, and no instruction with a relative target
// (a jump or a bpf-to-bpf call), so that no offset needs fixing.
func swappable(in insn.Insn) bool {
	_, rel := in.Relative()
	return !in.Filler && !in.IsLdImm64() && !rel
}

// deleteInsn deletes instruction i (both halves of an ld_imm64).
func deleteInsn(prog []insn.Insn, i int) []edit {
	if prog[i].Filler {
		return nil
	}
	return []edit{deletion(i, prog[i].Width())}
}

// aluOps are the ALU operations aluOperation chooses from; neg and the
// byte swaps have operand rules of their own and are left out.
var aluOps = []uint8{insn.ALUAdd, insn.ALUSub, insn.ALUMul, insn.ALUDiv, insn.ALUOr, insn.ALUAnd,
	insn.ALULsh, insn.ALURsh, insn.ALUMod, insn.ALUXor, insn.ALUMov, insn.ALUArsh}

// aluOperation replaces an ALU instruction's operation by each other one
// with the same operands, signed division and modulo included: pointer
// arithmetic the kernel forbids (|=, <<= on a pointer), scalar bounds of
// every operation, a division by a register that may be zero.
func aluOperation(in insn.Insn) []insn.Insn {
	if (in.Class() != insn.ClassALU && in.Class() != insn.ClassALU64) || in.ALUOp() == insn.ALUNeg || in.ALUOp() == insn.ALUEnd {
		return nil
	}
	var out []insn.Insn
	for _, op := range aluOps {
		v := in
		v.Op = in.Op&^0xf0 | op
		v.Off = 0
		out = append(out, v)
		if op == insn.ALUDiv || op == insn.ALUMod {
			v.Off = insn.OffSigned
			out = append(out, v)
		}
	}
	return out
}

// sourceOperand turns an immediate operand into each register (r10
// included) and a register operand into the immediates 0, 1 and -1, for
// ALU instructions and conditional jumps: a pointer where a constant was,
// a comparison of two registers that the verifier links, a constant where
// a register's bounds were learnt.
func sourceOperand(in insn.Insn) []insn.Insn {
	isALU := (in.Class() == insn.ClassALU || in.Class() == insn.ClassALU64) && in.ALUOp() != insn.ALUNeg && in.ALUOp() != insn.ALUEnd
	if !isALU && !in.IsConditional() {
		return nil
	}
	var out []insn.Insn
	if in.SrcIsReg() {
		for _, imm := range []int32{0, 1, -1} {
			v := in
			v.Op &^= insn.SrcX
			v.Src, v.Imm, v.Off = 0, imm, in.Off
			if isALU {
				v.Off = 0
			}
			out = append(out, v)
		}
		return out
	}
	for r := insn.R0; r <= insn.R10; r++ {
		v := in
		v.Op |= insn.SrcX
		v.Src, v.Imm = r, 0
		out = append(out, v)
	}
	return out
}

// accessSize changes the size of any plain memory access (context
// fields' narrow-access rules, the end of a map value or packet), where
// spillWidth only changes stack accesses.
func accessSize(in insn.Insn) []insn.Insn {
	if !isMemAccess(in) || in.Mode() == insn.ModeATOMIC || isStackAccess(in) {
		return nil
	}
	return otherSizes(in)
}

// loadOrStore turns a load into a store of the loaded register through
// the same pointer and offset, and a store into the matching load: writes
// to read-only memory (the context's read-only fields, a read-only map, a
// packet in a program that may not write it), reads of what was only
// ever written.
func loadOrStore(in insn.Insn) []insn.Insn {
	size := in.Op & 0x18
	switch {
	case in.Class() == insn.ClassLDX && in.Mode() == insn.ModeMEM:
		return []insn.Insn{{Op: insn.ClassSTX | insn.ModeMEM | size, Dst: in.Src, Src: in.Dst, Off: in.Off}}
	case in.Class() == insn.ClassSTX && in.Mode() == insn.ModeMEM:
		return []insn.Insn{{Op: insn.ClassLDX | insn.ModeMEM | size, Dst: in.Src, Src: in.Dst, Off: in.Off}}
	case in.Class() == insn.ClassST && in.Mode() == insn.ModeMEM:
		return []insn.Insn{{Op: insn.ClassLDX | insn.ModeMEM | size, Dst: insn.R0, Src: in.Dst, Off: in.Off}}
	}
	return nil
}

// atomicOps are the operations of STX|ATOMIC, in the imm field.
var atomicOps = []int32{insn.AtomicAdd, insn.AtomicOr, insn.AtomicAnd, insn.AtomicXor,
	insn.AtomicAdd | insn.AtomicFetch, insn.AtomicOr | insn.AtomicFetch, insn.AtomicAnd | insn.AtomicFetch,
	insn.AtomicXor | insn.AtomicFetch, insn.AtomicXchg, insn.AtomicCmpXchg, insn.AtomicLoadAcq, insn.AtomicStoreRel}

// atomicOperation replaces an atomic instruction's operation by each
// other one, and a plain register store by each atomic one: fetches that
// write a register (r0 for cmpxchg), atomics on memory that must not take
// them, acquire/release forms.
func atomicOperation(in insn.Insn) []insn.Insn {
	if in.Class() != insn.ClassSTX || (in.Mode() != insn.ModeATOMIC && in.Mode() != insn.ModeMEM) {
		return nil
	}
	var out []insn.Insn
	for _, op := range atomicOps {
		v := in
		v.Op = in.Op&^0xe0 | insn.ModeATOMIC
		v.Imm = op
		out = append(out, v)
	}
	return out
}

// maxHelperID is one past the last helper number of Linux 6.18
// (__BPF_FUNC_MAX_ID).
const maxHelperID = 212

// otherHelper calls each other helper with the same arguments: argument
// kinds the program did not prepare, helpers its program type may not
// call, return kinds its code did not expect.
func otherHelper(in insn.Insn) []insn.Insn {
	if !in.IsHelperCall() {
		return nil
	}
	out := make([]insn.Insn, 0, maxHelperID)
	for id := int32(1); id < maxHelperID; id++ {
		v := in
		v.Imm = id
		out = append(out, v)
	}
	return out
}

// clobberValues are the constants clobberOperand writes.
var clobberValues = []int32{0, 1, -1, 8}

// clobberOperand inserts, before instruction i, a write of a constant or
// of the frame pointer to a register i reads: NULL or a small number as a
// helper or kfunc argument (r1-r5 before a call), a scalar where a
// pointer was, the frame pointer where a map value was.
func clobberOperand(prog []insn.Insn, i int) []edit {
	var out []edit
	for _, r := range usedRegs(prog[i]) {
		for _, k := range clobberValues {
			out = append(out, insertion(i, insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcK, Dst: r, Imm: k}))
		}
		out = append(out, insertion(i, insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: r, Src: insn.R10}))
	}
	return out
}

// usedRegs are the registers other than r10 that instruction in uses as
// operands: r1-r5 of a call, r0 of an exit.
func usedRegs(in insn.Insn) []uint8 {
	if in.Filler {
		return nil
	}
	switch {
	case in.Op == insn.ClassJMP|insn.JmpCall:
		return []uint8{insn.R1, insn.R2, insn.R3, insn.R4, insn.R5}
	case in.Op == insn.ClassJMP|insn.JmpExit:
		return []uint8{insn.R0}
	}
	var regs []uint8
	for _, r := range operandRegs(&in) {
		if *r != insn.R10 {
			regs = append(regs, *r)
		}
	}
	return regs
}

// roundTripSlot is the stack offset spillRoundTrip stores at: the lowest
// slot, which few programs use, so the round trip seldom overwrites data
// the program keeps.
const roundTripSlot = -512

// spillRoundTrip inserts, before instruction i, a store of a register i
// uses to the stack and a load of it back, whole (a spill and fill, which
// must keep the register's type and bounds for the pointers the kernel
// spills, and make a scalar of the others) or through its low four bytes
// (no spill of a pointer; of a scalar, a narrowing one).
func spillRoundTrip(prog []insn.Insn, i int) []edit {
	var out []edit
	for _, r := range usedRegs(prog[i]) {
		for _, size := range []uint8{insn.SizeDW, insn.SizeW} {
			out = append(out, insertion(i,
				insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | size, Dst: insn.R10, Src: r, Off: roundTripSlot},
				insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | size, Dst: r, Src: insn.R10, Off: roundTripSlot},
			))
		}
	}
	return out
}

// helperGetPrandomU32 is bpf_get_prandom_u32's helper id.
const helperGetPrandomU32 = 7

// pathDependentBase makes the base register of a memory access depend on
// the path: before the access it inserts a random draw and a branch on it
// that, on one edge, replaces the base by the frame pointer. The same
// instruction then sees two pointer kinds, which the kernel refuses for
// the context and sockets ("same insn cannot be used with different
// pointers") and checks against the stack's rules otherwise. Only bases
// in r6-r9 are used: the call clobbers r0-r5.
func pathDependentBase(prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !isMemAccess(in) {
		return nil
	}
	base := accessBase(in)
	if base < insn.R6 || base > insn.R9 {
		return nil
	}
	return []edit{insertion(i,
		insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Imm: helperGetPrandomU32},
		insn.Insn{Op: insn.ClassJMP | insn.JmpJGT | insn.SrcK, Dst: insn.R0, Imm: 1, Off: 1},
		insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: base, Src: insn.R10},
	)}
}

// bitFlip flips one bit of the instruction's encoding: of its opcode, its
// registers, its offset or its immediate. Unlike the operators above it
// knows nothing of what the instruction means, so most of its variants
// are encodings no compiler emits: reserved fields set, opcodes of no
// instruction, registers past r10, a call turned into a kfunc or
// subprogram call, a load into an atomic. They are aimed at the kernel's
// encoding checks (bpf_opcode_in_insntable, the reserved-field checks of
// do_check, check_ld_imm, check_mem_access's mode checks) and at the
// meaning of fields the structured operators leave alone. An opcode that
// becomes or stops being an ld_imm64 would change how the next slot
// reads, and an ld_imm64's source register names what the loader
// resolves: neither is flipped.
func bitFlip(in insn.Insn) []insn.Insn {
	var out []insn.Insn
	add := func(v insn.Insn) {
		if v.IsLdImm64() == in.IsLdImm64() {
			out = append(out, v)
		}
	}
	if !in.IsLdImm64() {
		for b := range 8 {
			v := in
			v.Op ^= 1 << b
			add(v)
		}
	}
	for b := range 4 {
		v := in
		v.Dst ^= 1 << b
		add(v)
		if !in.IsLdImm64() {
			v = in
			v.Src ^= 1 << b
			add(v)
		}
	}
	for b := range 16 {
		v := in
		v.Off ^= int16(uint16(1) << b)
		add(v)
	}
	for b := range 32 {
		v := in
		v.Imm ^= int32(uint32(1) << b)
		add(v)
	}
	return out
}

// otherOpcode gives the instruction every other opcode the kernel knows
// (bpf_opcode_in_insntable), its registers, offset and immediate kept: a
// load read as a store or an atomic, an ALU operation as a jump, a jump as
// a call or an exit. Where bitFlip reaches the opcodes one bit away, this
// reaches them all, and only valid ones: the fields, not the opcode, then
// decide what the kernel makes of it. ld_imm64 is neither made nor
// unmade (see bitFlip).
func otherOpcode(in insn.Insn) []insn.Insn {
	if in.IsLdImm64() {
		return nil
	}
	var out []insn.Insn
	for op := range 256 {
		v := in
		v.Op = uint8(op)
		if v.Op != in.Op && insn.KnownOpcode(v.Op) && !v.IsLdImm64() {
			out = append(out, v)
		}
	}
	return out
}
