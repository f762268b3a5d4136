package insn

import (
	"errors"
	"fmt"
	"slices"
)

// Error is a rejection of the program with the kernel's log message. Insn
// is the kernel instruction index the kernel was looking at (0 when the
// message is not about one instruction).
type Error struct {
	Insn int
	Msg  string
}

// Error returns the kernel's message.
func (e *Error) Error() string { return e.Msg }

func errAt(idx int, format string, args ...any) *Error {
	return &Error{Insn: idx, Msg: fmt.Sprintf(format, args...)}
}

// ErrEmpty is returned for a program without instructions. The kernel
// refuses such a load in bpf_prog_load (E2BIG) before the verifier runs,
// so there is no log message to reproduce.
var ErrEmpty = errors.New("program has no instructions")

// Options tune the load-time checks to the loader's privileges and tell
// the analysis about calls.
type Options struct {
	// Unprivileged reproduces a load without CAP_BPF: bpf-to-bpf calls,
	// kfunc calls and back-edges are rejected.
	Unprivileged bool
	// HelperArgs returns the number of arguments of a helper (r1..rN are
	// read by the call), or a negative number for an unknown helper. When
	// nil or negative, a helper call reads r1-r5 like the kernel does for
	// an id it cannot resolve.
	HelperArgs func(id int32) int
	// KfuncArgs returns the number of arguments of a kfunc call (by
	// instruction, since Off selects the module BTF), or a negative number
	// when unknown. When nil or negative, the call reads r1-r5.
	KfuncArgs func(call Insn) int
	// FuncInfo lists where the BTF func_info records of the program put
	// its subprograms, by instruction; nil for a program without func
	// info. The kernel checks the records against the subprograms the
	// calls define (check_btf_func) before it looks at opcodes or the CFG.
	FuncInfo []int
	// ScalarReturns says, for each func_info record, whether its function
	// is declared to return an integer of at most eight bytes or an enum
	// (nil: every one is). check_btf_func refuses a legacy packet load or
	// a tail call in a subprogram that is not, record by record with the
	// layout check, before the opcodes and the CFG are looked at.
	ScalarReturns []bool
	// LineInfo lists, in order, the instructions the program's BTF
	// line_info records name; nil for a program without line info. The
	// kernel requires one at the start of every subprogram
	// (check_btf_line), right after the func_info checks.
	LineInfo []int
	// KfuncKind classifies a kfunc call for the control-flow flags: whether
	// it is an open-coded iterator's next, or calls a callback synchronously
	// or asynchronously. Nil means none of these.
	KfuncKind func(call Insn) KfuncKind
	// ResolveLdImm64, when set, resolves the ld_imm64 at i whose source is
	// a pseudo one (a map, a map value, a BTF id, a function), once its
	// shape is checked: resolve_pseudo_ldimm64 does both in one pass, in
	// instruction order, before the CFG checks. Its error is returned as
	// it is.
	ResolveLdImm64 func(i int) error
	// CallbackSCC makes every instruction that calls a callback
	// synchronously (bpf_loop and its kind) a strongly connected
	// component of its own, as the kernel's compute_scc does since
	// upstream f597664454bd (stablefix.CallbackLoopSCC): the callback's
	// repeated runs are a loop the graph does not show.
	CallbackSCC bool
	// ExceptionCallback is the first instruction of the program's
	// exception callback (the function its main program's
	// "exception_callback:NAME" decl tag names), or 0 for none. Nothing
	// calls it, yet the kernel makes it a subprogram
	// (add_subprog_and_kfunc) and walks it in check_cfg.
	ExceptionCallback int
}

// KfuncKind says how a kfunc call affects the control-flow flags.
type KfuncKind uint8

// Kfunc kinds.
const (
	KfuncPlain    KfuncKind = iota // an ordinary kernel function
	KfuncIterNext                  // bpf_iter_*_next: prune point and force checkpoint
	KfuncSyncCB                    // calls a callback before returning (bpf_rbtree_add, ...)
	KfuncAsyncCB                   // registers a callback run later (bpf_wq_set_callback, ...)
)

// Validate runs every check that does not depend on register state: the
// load-time checks the kernel makes before simulating (see Check), then,
// instruction by instruction, CheckInsn. The kernel makes the second group
// only when its simulation reaches the instruction, so a verifier that
// wants the kernel's first message must call CheckFields/CheckInsn itself
// in simulation order and use Check for the load-time part.
func Validate(prog []Insn) error {
	if err := Check(prog, Options{}); err != nil {
		return err
	}
	for i := 0; i < len(prog); i++ {
		if err := CheckInsn(prog[i]); err != nil {
			err.Insn = i
			return err
		}
		i += prog[i].Width() - 1
	}
	return nil
}

// Check runs the kernel's load-time checks in its order:
// add_subprog_and_kfunc (call targets), check_subprogs (jumps stay inside
// their subprogram, each subprogram ends in exit or ja),
// resolve_pseudo_ldimm64 (LDX reserved fields, ld_imm64 shape, known
// opcodes) and check_cfg (reachability, back-edges when unprivileged,
// jumps into an ld_imm64). It returns an *Error or ErrEmpty.
func Check(prog []Insn, opts Options) error {
	sc := getScratch(len(prog))
	defer putScratch(sc)
	_, err := analyzeStatic(prog, opts, sc)
	return err
}

// analyzeStatic runs Check's checks with the scratch sc and returns the
// CFG they build, which holds sc until the caller is done with it.
func analyzeStatic(prog []Insn, opts Options, sc *scratch) (*CFG, error) {
	if len(prog) == 0 {
		return nil, ErrEmpty
	}
	starts, err := findSubprogs(prog, opts)
	if err != nil {
		return nil, err
	}
	if err := checkSubprogs(prog, starts); err != nil {
		return nil, err
	}
	if err := checkFuncInfo(prog, starts, opts); err != nil {
		return nil, err
	}
	if err := checkLineInfo(prog, opts.LineInfo, starts); err != nil {
		return nil, err
	}
	if err := checkLdImmAndOpcodes(prog, opts.ResolveLdImm64); err != nil {
		return nil, err
	}
	g := newCFG(prog, starts, opts)
	g.sc = sc
	if err := g.checkCFG(); err != nil {
		return nil, err
	}
	return g, nil
}

// checkFuncInfo is check_btf_func's comparison of the func_info records
// with the subprograms: one record per subprogram, at its start. A call
// deleted from a program with BTF leaves a record without its subprogram.
func checkFuncInfo(prog []Insn, starts []int, opts Options) *Error {
	funcInfo := opts.FuncInfo
	if funcInfo == nil {
		return checkAbnormalReturn(prog, starts)
	}
	if len(funcInfo) != len(starts) {
		return errAt(0, "number of funcs in func_info doesn't match number of subprogs")
	}
	for i, s := range starts {
		if funcInfo[i] != s {
			return errAt(s, "func_info BTF section doesn't match subprog layout in BPF program")
		}
		if i == 0 || i >= len(opts.ScalarReturns) || opts.ScalarReturns[i] {
			continue
		}
		end := subprogEnd(starts, i, len(prog))
		if HasLdAbs(prog, s, end) {
			return errAt(0, "LD_ABS is only allowed in functions that return 'int'.")
		}
		if HasTailCall(prog, s, end) {
			return errAt(0, "tail_call is only allowed in functions that return 'int'.")
		}
	}
	return nil
}

// checkLineInfo is check_btf_line's pairing of the line_info records with
// the subprograms: walking the records in order, each subprogram's start
// must be named by one before a record past it, and no record may name an
// instruction of opcode 0 (checked first, record by record). A loader writes a record
// per instruction that has a source position, so an instruction inserted
// before a function's first line (by a rewriter or a fuzzer) leaves that
// function without one.
func checkLineInfo(prog []Insn, lines, starts []int) *Error {
	if len(lines) == 0 {
		return nil
	}
	s := 0
	for k, off := range lines {
		if off >= 0 && off < len(prog) && prog[off].Op == 0 {
			// Opcode 0 (BPF_LD|BPF_IMM|BPF_W) is no instruction: a
			// bit-flipped one, or an ld_imm64's second half.
			return errAt(0, "Invalid insn code at line_info[%d].insn_off", k)
		}
		if s == len(starts) {
			continue
		}
		if off == starts[s] {
			s++
		} else if starts[s] < off {
			return errAt(0, "missing bpf_line_info for func#%d", s)
		}
	}
	if s != len(starts) {
		return errAt(0, "missing bpf_line_info for %d funcs starting from func#%d", len(starts)-s, s)
	}
	return nil
}

// checkAbnormalReturn is check_abnormal_return, for a program without
// func_info: no subprogram but the main one may use a legacy packet load
// or a tail call, which can end the program from inside it; only BTF
// function info, whose return types check_btf_func checks, allows that.
// Every subprogram is refused, reachable or not.
func checkAbnormalReturn(prog []Insn, starts []int) *Error {
	for i := 1; i < len(starts); i++ {
		start, end := starts[i], subprogEnd(starts, i, len(prog))
		if HasLdAbs(prog, start, end) {
			return errAt(0, "LD_ABS is not allowed in subprogs without BTF")
		}
		if HasTailCall(prog, start, end) {
			return errAt(0, "tail_call is not allowed in subprogs without BTF")
		}
	}
	return nil
}

// HasLdAbs reports whether prog[start:end] holds a legacy packet load
// (LD_ABS or LD_IND), each slot looked at by its own opcode as
// check_subprogs does.
func HasLdAbs(prog []Insn, start, end int) bool {
	for _, in := range prog[start:min(end, len(prog))] {
		if in.IsLdAbsOrInd() {
			return true
		}
	}
	return false
}

// HasTailCall reports whether prog[start:end] calls bpf_tail_call.
func HasTailCall(prog []Insn, start, end int) bool {
	for _, in := range prog[start:min(end, len(prog))] {
		if in.IsTailCall() {
			return true
		}
	}
	return false
}

// SubprogStarts returns the first instruction of every subprogram, the
// main program's (0) first, as the kernel's add_subprog_and_kfunc
// collects them, or the error that pass refuses the program with.
func SubprogStarts(prog []Insn, opts Options) ([]int, error) {
	return findSubprogs(prog, opts)
}

// CheckCallDestination is add_subprog's check of the bpf-to-bpf call or
// function address at i: its target must be an instruction of prog. The
// kernel makes it while it walks the instructions in order, interleaved
// with add_kfunc_call's checks of kfunc calls, so a caller checking kfunc
// calls first asks it of every earlier call site.
func CheckCallDestination(prog []Insn, i int) *Error {
	in := prog[i]
	if !in.IsPseudoFunc() && !in.IsPseudoCall() {
		return nil
	}
	if target := i + int(in.Imm) + 1; target < 0 || target >= len(prog) {
		return errAt(i, "call to invalid destination")
	}
	return nil
}

// findSubprogs collects subprogram starts from bpf-to-bpf calls and
// PseudoFunc loads, sorted, with 0 first. Every slot is looked at by its
// own opcode, as the kernel does.
func findSubprogs(prog []Insn, opts Options) ([]int, error) {
	starts := []int{0}
	for i, in := range prog {
		if !in.IsPseudoFunc() && !in.IsPseudoCall() && !in.IsKfuncCall() {
			continue
		}
		if opts.Unprivileged {
			return nil, errAt(i, "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN")
		}
		if in.IsKfuncCall() {
			continue
		}
		if err := CheckCallDestination(prog, i); err != nil {
			return nil, err
		}
		target := i + int(in.Imm) + 1
		pos := searchInts(starts, target)
		if pos < len(starts) && starts[pos] == target {
			continue
		}
		if len(starts) >= MaxSubprogs {
			return nil, errAt(i, "too many subprograms")
		}
		starts = append(starts, 0)
		copy(starts[pos+1:], starts[pos:])
		starts[pos] = target
	}
	if cb := opts.ExceptionCallback; cb > 0 && cb < len(prog) {
		if pos := searchInts(starts, cb); pos == len(starts) || starts[pos] != cb {
			// add_subprog, whose limit holds for it too.
			if len(starts) >= MaxSubprogs {
				return nil, errAt(cb, "too many subprograms")
			}
			starts = slices.Insert(starts, pos, cb)
		}
	}
	return starts, nil
}

// searchInts returns the first position in sorted s whose value is >= v.
func searchInts(s []int, v int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// checkSubprogs rejects jumps leaving their subprogram and subprograms
// that can fall through into the next one.
func checkSubprogs(prog []Insn, starts []int) error {
	cur := 0
	start, end := starts[0], subprogEnd(starts, 0, len(prog))
	for i, in := range prog {
		if in.IsJmpClass() && in.JmpOp() != JmpExit && in.JmpOp() != JmpCall {
			// The kernel adds in int: a gotol past 2^31 wraps.
			target := int(int32(i + int(in.JumpOffset()) + 1))
			if target < start || target >= end {
				return errAt(i, "jump out of range from insn %d to %d", i, target)
			}
		}
		if i != end-1 {
			continue
		}
		if in.Op != ClassJMP|JmpExit && in.Op != ClassJMP32|JmpJA && in.Op != ClassJMP|JmpJA {
			return errAt(i, "last insn is not an exit or jmp")
		}
		cur++
		start = end
		if cur < len(starts) {
			end = subprogEnd(starts, cur, len(prog))
		}
	}
	return nil
}

func subprogEnd(starts []int, s, n int) int {
	if s+1 < len(starts) {
		return starts[s+1]
	}
	return n
}

// checkLdImmAndOpcodes is resolve_pseudo_ldimm64: LDX reserved fields, the
// shape of each ld_imm64 and the table of known opcodes here, the maps and
// BTF ids the pseudo loads refer to by resolve (nil: not resolved).
func checkLdImmAndOpcodes(prog []Insn, resolve func(i int) error) error {
	for i := 0; i < len(prog); i++ {
		in := prog[i]
		if in.Class() == ClassLDX && ((in.Mode() != ModeMEM && in.Mode() != ModeMEMSX) || in.Imm != 0) {
			return errAt(i, "BPF_LDX uses reserved fields")
		}
		if in.IsLdImm64() {
			if err := checkLdImm64(prog, i); err != nil {
				return err
			}
			if in.Src != 0 && resolve != nil {
				if err := resolve(i); err != nil {
					return err
				}
			} else if err := CheckDirectValueOffset(in, i); err != nil {
				return err
			}
			i++
			continue
		}
		if !KnownOpcode(in.Op) {
			return errAt(i, "unknown opcode %02x", in.Op)
		}
	}
	return nil
}

func checkLdImm64(prog []Insn, i int) error {
	in := prog[i]
	if i == len(prog)-1 {
		return errAt(i, "invalid bpf_ld_imm64 insn")
	}
	if next := prog[i+1]; next.Op != 0 || next.Dst != 0 || next.Src != 0 || next.Off != 0 {
		return errAt(i, "invalid bpf_ld_imm64 insn")
	}
	switch in.Src {
	case 0, PseudoBTFID, PseudoFunc:
		return nil
	case PseudoMapValue, PseudoMapIdxValue:
		return nil
	case PseudoMapFD, PseudoMapIdx:
		if in.Imm2 == 0 {
			return nil
		}
	}
	return errAt(i, "unrecognized bpf_ld_imm64 insn")
}

// CheckDirectValueOffset refuses the value offset of a map-value ld_imm64
// at i beyond what a map's direct value address may take. The kernel
// checks it once the map is resolved (after the fd lookup and the map's
// compatibility with the program, in resolve_pseudo_ldimm64), so a
// resolver calls it at that point; without one it is checked with the
// instruction's shape.
func CheckDirectValueOffset(in Insn, i int) error {
	if in.Src != PseudoMapValue && in.Src != PseudoMapIdxValue {
		return nil
	}
	if off := uint32(in.Imm2); off >= MaxVarOff {
		return errAt(i, "direct value offset of %d is not allowed", off)
	}
	return nil
}

// knownOpcodes is the kernel's table of opcodes a program may contain
// (bpf_opcode_in_insntable, 6.18: cpu v4 included, no gotox).
var knownOpcodes = func() (t [256]bool) {
	aluOps := []uint8{ALUAdd, ALUSub, ALUMul, ALUDiv, ALUOr, ALUAnd, ALULsh, ALURsh, ALUMod, ALUXor, ALUMov, ALUArsh}
	for _, class := range []uint8{ClassALU, ClassALU64} {
		for _, op := range aluOps {
			t[class|op|SrcK] = true
			t[class|op|SrcX] = true
		}
		t[class|ALUNeg] = true
		t[class|ALUEnd|EndToLE] = true
	}
	t[ClassALU|ALUEnd|EndToBE] = true
	condOps := []uint8{JmpJEQ, JmpJNE, JmpJGT, JmpJLT, JmpJGE, JmpJLE, JmpJSGT, JmpJSLT, JmpJSGE, JmpJSLE, JmpJSET}
	for _, class := range []uint8{ClassJMP, ClassJMP32} {
		for _, op := range condOps {
			t[class|op|SrcK] = true
			t[class|op|SrcX] = true
		}
		t[class|JmpJA] = true
	}
	t[ClassJMP|JmpCall] = true
	t[ClassJMP|JmpExit] = true
	t[ClassJMP|JmpJCOND] = true
	for _, size := range []uint8{SizeB, SizeH, SizeW, SizeDW} {
		t[ClassSTX|ModeATOMIC|size] = true
		t[ClassSTX|ModeMEM|size] = true
		t[ClassST|ModeMEM|size] = true
		t[ClassLDX|ModeMEM|size] = true
	}
	for _, size := range []uint8{SizeB, SizeH, SizeW} {
		t[ClassLDX|ModeMEMSX|size] = true
		t[ClassLD|ModeABS|size] = true
		t[ClassLD|ModeIND|size] = true
	}
	t[ClassLD|ModeIMM|SizeDW] = true
	return t
}()

// KnownOpcode reports whether the 6.18 kernel accepts op at all.
func KnownOpcode(op uint8) bool { return knownOpcodes[op] }

// CheckFields returns the kernel's "uses reserved fields" style rejection
// of a known opcode, or nil. The kernel makes these checks when its
// simulation reaches the instruction, before touching any register, with
// two exceptions the caller must order itself: a conditional jump first
// reads its dst register, and LD_ABS/LD_IND first checks the program type.
// LDX fields and ld_imm64 shape are load-time checks (see Check).
func CheckFields(in Insn) *Error {
	switch in.Class() {
	case ClassALU, ClassALU64:
		return checkALUFields(in)
	case ClassST:
		if in.Mode() != ModeMEM || in.Src != 0 {
			return errAt(0, "BPF_ST uses reserved fields")
		}
	case ClassSTX:
		if in.Mode() == ModeATOMIC {
			return checkAtomicFields(in)
		}
		if in.Mode() != ModeMEM || in.Imm != 0 {
			return errAt(0, "BPF_STX uses reserved fields")
		}
	case ClassLD:
		switch in.Mode() {
		case ModeABS, ModeIND:
			if in.Dst != R0 || in.Off != 0 || in.Op&0x18 == SizeDW || (in.Mode() == ModeABS && in.Src != 0) {
				return errAt(0, "BPF_LD_[ABS|IND] uses reserved fields")
			}
		case ModeIMM:
			// check_ld_imm: the size first, then the off field, which no
			// ld_imm64 uses (resolve_pseudo_ldimm64 checks only the
			// second half's fields).
			if in.Op&0x18 != SizeDW {
				return errAt(0, "invalid BPF_LD_IMM insn")
			}
			if in.Off != 0 {
				return errAt(0, "BPF_LD_IMM64 uses reserved fields")
			}
		default:
			return errAt(0, "invalid BPF_LD mode")
		}
	case ClassJMP, ClassJMP32:
		return checkJmpFields(in)
	}
	return nil
}

func checkALUFields(in Insn) *Error {
	op := in.ALUOp()
	switch op {
	case ALUNeg:
		if in.SrcIsReg() || in.Src != 0 || in.Off != 0 || in.Imm != 0 {
			return errAt(0, "BPF_NEG uses reserved fields")
		}
	case ALUEnd:
		if in.Src != 0 || in.Off != 0 || (in.Imm != 16 && in.Imm != 32 && in.Imm != 64) ||
			(in.Class() == ClassALU64 && in.Op&SrcX != EndToLE) {
			return errAt(0, "BPF_END uses reserved fields")
		}
	case ALUMov:
		switch {
		case !in.SrcIsReg():
			if in.Src != 0 || in.Off != 0 {
				return errAt(0, "BPF_MOV uses reserved fields")
			}
		case in.Class() == ClassALU:
			if (in.Off != 0 && in.Off != 8 && in.Off != 16) || in.Imm != 0 {
				return errAt(0, "BPF_MOV uses reserved fields")
			}
		case in.Off == OffAddrSpaceCast:
			if in.Imm != CastToKernel && in.Imm != CastToUser {
				return errAt(0, "addr_space_cast insn can only convert between address space 1 and 0")
			}
		default:
			if (in.Off != 0 && in.Off != 8 && in.Off != 16 && in.Off != 32) || in.Imm != 0 {
				return errAt(0, "BPF_MOV uses reserved fields")
			}
		}
	case ALUAdd, ALUSub, ALUMul, ALUDiv, ALUOr, ALUAnd, ALULsh, ALURsh, ALUMod, ALUXor, ALUArsh:
		signedOK := op == ALUDiv || op == ALUMod
		badOff := (in.Off != 0 && in.Off != OffSigned) || (in.Off == OffSigned && !signedOK)
		if in.SrcIsReg() {
			if in.Imm != 0 || badOff {
				return errAt(0, "BPF_ALU uses reserved fields")
			}
		} else if in.Src != 0 || badOff {
			return errAt(0, "BPF_ALU uses reserved fields")
		}
	default:
		return errAt(0, "invalid BPF_ALU opcode %x", op)
	}
	return nil
}

func checkAtomicFields(in Insn) *Error {
	switch in.Imm {
	case AtomicAdd, AtomicAdd | AtomicFetch, AtomicAnd, AtomicAnd | AtomicFetch,
		AtomicOr, AtomicOr | AtomicFetch, AtomicXor, AtomicXor | AtomicFetch,
		AtomicXchg, AtomicCmpXchg:
		if size := in.Op & 0x18; size != SizeW && size != SizeDW {
			return errAt(0, "invalid atomic operand size")
		}
	case AtomicLoadAcq, AtomicStoreRel:
	default:
		return errAt(0, "BPF_ATOMIC uses invalid atomic opcode %02x", uint32(in.Imm))
	}
	return nil
}

func checkJmpFields(in Insn) *Error {
	class := in.Class()
	switch op := in.JmpOp(); op {
	case JmpCall:
		if in.SrcIsReg() || (in.Src != PseudoKfuncCall && in.Off != 0) ||
			(in.Src != 0 && in.Src != PseudoCall && in.Src != PseudoKfuncCall) ||
			in.Dst != 0 || class == ClassJMP32 {
			return errAt(0, "BPF_CALL uses reserved fields")
		}
	case JmpJA:
		if in.SrcIsReg() || in.Src != 0 || in.Dst != 0 ||
			(class == ClassJMP && in.Imm != 0) || (class == ClassJMP32 && in.Off != 0) {
			return errAt(0, "BPF_JA uses reserved fields")
		}
	case JmpExit:
		if in.SrcIsReg() || in.Imm != 0 || in.Src != 0 || in.Dst != 0 || class == ClassJMP32 {
			return errAt(0, "BPF_EXIT uses reserved fields")
		}
	case JmpJCOND:
		if in.Op != ClassJMP|JmpJCOND || in.Src != MayGotoSrc || in.Dst != 0 || in.Imm != 0 {
			return errAt(0, "invalid may_goto imm %d", in.Imm)
		}
	default:
		if op > JmpJCOND {
			return errAt(0, "invalid BPF_JMP/JMP32 opcode %x", op)
		}
		if in.SrcIsReg() && in.Imm != 0 || !in.SrcIsReg() && in.Src != 0 {
			return errAt(0, "BPF_JMP/JMP32 uses reserved fields")
		}
	}
	return nil
}

// CheckReg returns the kernel's rejection of a register number outside
// r0-r10 ("R%d is invalid"), or nil.
func CheckReg(r uint8) *Error {
	if r >= NumRegs {
		return errAt(0, "R%d is invalid", r)
	}
	return nil
}

// Bit widths of the shift operands.
const (
	shiftLimit32 = 32
	shiftLimit64 = 64
)

// CheckInsn returns the first rejection the kernel would make when
// simulating in, whatever the register state: reserved fields, register
// numbers, writes to r10, division by constant zero and out-of-range
// constant shifts, in the kernel's order. Errors that depend on register
// contents (such as "R%d !read_ok") would come between these; a verifier
// reproducing the kernel's messages interleaves them itself.
func CheckInsn(in Insn) *Error {
	if err := CheckFields(in); err != nil {
		return err
	}
	for _, r := range readRegs(in) {
		if err := CheckReg(r); err != nil {
			return err
		}
	}
	if in.Class() == ClassALU || in.Class() == ClassALU64 {
		op := in.ALUOp()
		if (op == ALUDiv || op == ALUMod) && !in.SrcIsReg() && in.Imm == 0 {
			return errAt(0, "div by zero")
		}
		if (op == ALULsh || op == ALURsh || op == ALUArsh) && !in.SrcIsReg() {
			limit := int32(shiftLimit32)
			if in.Class() == ClassALU64 {
				limit = shiftLimit64
			}
			if in.Imm < 0 || in.Imm >= limit {
				return errAt(0, "invalid shift %d", in.Imm)
			}
		}
	}
	if w, ok := writtenReg(in); ok {
		if err := CheckReg(w); err != nil {
			return err
		}
		if w == R10 {
			return errAt(0, "frame pointer is read only")
		}
	}
	return nil
}

// readRegs lists the registers the kernel reads (check_reg_arg SRC_OP)
// for in, in the order it reads them.
func readRegs(in Insn) []uint8 {
	switch in.Class() {
	case ClassALU, ClassALU64:
		switch op := in.ALUOp(); {
		case op == ALUNeg || op == ALUEnd:
			return []uint8{in.Dst}
		case op == ALUMov:
			if in.SrcIsReg() {
				return []uint8{in.Src}
			}
			return nil
		case in.SrcIsReg():
			return []uint8{in.Src, in.Dst}
		default:
			return []uint8{in.Dst}
		}
	case ClassLDX:
		return []uint8{in.Src}
	case ClassST:
		return []uint8{in.Dst}
	case ClassSTX:
		if in.Mode() == ModeATOMIC {
			switch in.Imm {
			case AtomicLoadAcq:
				return []uint8{in.Src}
			case AtomicStoreRel:
				return []uint8{in.Src, in.Dst}
			}
		}
		return []uint8{in.Src, in.Dst}
	case ClassLD:
		if in.Mode() == ModeIND {
			return []uint8{in.Src}
		}
	case ClassJMP, ClassJMP32:
		switch in.JmpOp() {
		case JmpCall, JmpJA, JmpExit, JmpJCOND:
			return nil
		}
		if in.SrcIsReg() {
			return []uint8{in.Dst, in.Src}
		}
		return []uint8{in.Dst}
	}
	return nil
}

// writtenReg returns the register in writes through check_reg_arg DST_OP.
func writtenReg(in Insn) (uint8, bool) {
	switch in.Class() {
	case ClassALU, ClassALU64, ClassLDX:
		return in.Dst, true
	case ClassLD:
		if in.IsLdImm64() {
			return in.Dst, true
		}
	case ClassSTX:
		if in.Mode() == ModeATOMIC && in.Imm == AtomicLoadAcq {
			return in.Dst, true
		}
	}
	return 0, false
}
