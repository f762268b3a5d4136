package verifier

import (
	"fmt"
	"slices"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

var sprintf = fmt.Sprintf

// step simulates the instruction at e.insnIdx and advances e.insnIdx. exit
// is true when the path ended (program exit).
func (e *env) step() (exit bool, err error) {
	// Every simulation takes the insn by pointer into e.prog (see
	// checkALU): a copy passed by value is spilled field by field and
	// read back whole, a store-forwarding stall at every call.
	in := &e.prog[e.insnIdx]
	if in.Filler {
		return false, e.reject(e.insnIdx, "invalid insn idx %d: second half of ld_imm64", e.insnIdx)
	}
	// Reserved fields are checked when the walk first reaches the insn; a
	// conditional jump reads its dst register first. On later visits
	// the read waits for the jump's case below, where the class is
	// known: the test is not paid by every insn.
	dstRead := false
	if !e.encodingOK.has(e.insnIdx) {
		if jmpReadsDst(in) {
			if err := e.checkRegRead(in.Dst); err != nil {
				return false, err
			}
			dstRead = true
		}
		if err := e.checkEncoding(*in); err != nil {
			return false, err
		}
		e.encodingOK.set(e.insnIdx)
	}
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64:
		if err := e.checkALU(in); err != nil {
			return false, err
		}
	case insn.ClassLDX:
		if err := e.checkLoad(in); err != nil {
			return false, err
		}
	case insn.ClassSTX:
		if in.Mode() == insn.ModeATOMIC {
			if err := e.checkAtomic(in); err != nil {
				return false, err
			}
			break
		}
		if err := e.checkStore(in); err != nil {
			return false, err
		}
	case insn.ClassST:
		if err := e.checkStore(in); err != nil {
			return false, err
		}
	case insn.ClassJMP, insn.ClassJMP32:
		if !dstRead && jmpReadsDst(in) {
			if err := e.checkRegRead(in.Dst); err != nil {
				return false, err
			}
		}
		e.jmpsProcessed++
		switch in.JmpOp() {
		case insn.JmpCall:
			if err := e.checkCallUnderLock(in); err != nil {
				return false, err
			}
			var err error
			switch in.Src {
			case insn.PseudoCall:
				err = e.checkFuncCall(in)
			case insn.PseudoKfuncCall:
				err = e.checkKfuncCall(in)
			default:
				err = e.checkHelperCall(in)
			}
			if err != nil {
				return false, err
			}
			if in.Src == insn.PseudoKfuncCall && isThrowCall(*in) {
				return e.processThrow()
			}
			// Whatever the call, r0 shows in the log after it
			// (do_check_insn).
			e.log.markRegScratched(0)
			if in.Src == insn.PseudoCall {
				return false, nil
			}
		case insn.JmpJA:
			if in.Class() == insn.ClassJMP {
				e.insnIdx += int(in.Off) + 1
			} else {
				e.insnIdx += int(in.Imm) + 1
			}
			return false, nil
		case insn.JmpExit:
			return e.processExit()
		case insn.JmpJCOND:
			return false, e.checkMayGoto(int(in.Off))
		default:
			return false, e.checkCondJmp(in)
		}
	case insn.ClassLD:
		if in.IsLdImm64() {
			if err := e.checkLdImm(in); err != nil {
				return false, err
			}
			e.insnIdx += 2
			return false, nil
		}
		if err := e.checkLdAbs(in); err != nil {
			return false, err
		}
	default:
		return false, e.reject(e.insnIdx, "unknown insn class %d", in.Class())
	}
	e.insnIdx++
	return false, nil
}

// jmpReadsDst reports whether in is a jump that reads its dst register first
// (a conditional jump of either class: not ja, call, exit or may_goto;
// isCondJump answers another question, for dead-branch fixups).
func jmpReadsDst(in *insn.Insn) bool {
	op := in.JmpOp()
	return in.IsJmpClass() && op != insn.JmpJA && op != insn.JmpCall && op != insn.JmpExit && op != insn.JmpJCOND
}

// checkLdImm simulates ld_imm64: a constant, a map pointer, a pointer into
// a map's value, a subprogram address, or a kernel object's address.
func (e *env) checkLdImm(in *insn.Insn) error {
	if err := e.checkRegWrite(in.Dst); err != nil {
		return err
	}
	dst := &e.regs()[in.Dst]
	switch in.Src {
	case 0:
		dst.MarkConst(in.Imm64())
	case insn.PseudoMapFD:
		m := e.maps[in.Imm]
		dst.MarkPtr(states.ConstPtrToMap, 0)
		dst.Aux = uint32(in.Imm)
		_ = m
	case insn.PseudoMapValue:
		if e.maps[in.Imm].Type == ebpf.Arena {
			// An arena global's address is the user address of the
			// variable: a number until it is cast.
			e.markUnknown(dst)
			return nil
		}
		dst.MarkPtr(states.PtrToMapValue, 0)
		dst.Aux = uint32(in.Imm)
		dst.Off = in.Imm2
	case insn.PseudoFunc:
		target := e.insnIdx + int(in.Imm) + 1
		sp := e.cfg.SubprogOf(target)
		// check_ld_imm refuses the address itself, whatever is done with
		// it later: a callback needs BTF func info, and a static one.
		if e.lp == nil || len(e.lp.Funcs) == 0 {
			return e.reject(e.insnIdx, "missing btf func_info")
		}
		if e.isGlobalSubprog(sp) {
			return e.reject(e.insnIdx, "callback function not static")
		}
		dst.MarkPtr(states.PtrToFunc, 0)
		dst.Aux = uint32(sp)
	case insn.PseudoBTFID:
		e.loadKsym(dst)
	default:
		return e.unsupported(e.insnIdx, "ld_imm64 with pseudo source %d", in.Src)
	}
	return nil
}

// checkLdAbsProgType is check_ld_abs's first test, may_access_skb: only
// socket filters and tc programs read the packet through LD_ABS/LD_IND.
func (e *env) checkLdAbsProgType() error {
	switch e.progType {
	case ebpf.SocketFilter, ebpf.SchedCLS, ebpf.SchedACT:
		return nil
	}
	return e.reject(e.insnIdx, "BPF_LD_[ABS|IND] instructions not allowed for this program type")
}

// checkLdAbs simulates the legacy packet loads LD_ABS and LD_IND.
func (e *env) checkLdAbs(in *insn.Insn) error {
	if err := e.checkLdAbsProgType(); err != nil {
		return err
	}
	regs := e.regs()
	if err := e.checkRegRead(6); err != nil {
		return err
	}
	// The load may end the program at run time: nothing may be held.
	if err := e.checkResourceLeak(false, true, "BPF_LD_[ABS|IND]"); err != nil {
		return err
	}
	if regs[6].Type != states.PtrToCtx {
		return e.reject(e.insnIdx, "at the time of BPF_LD_ABS|IND R6 != pointer to skb")
	}
	if in.Mode() == insn.ModeIND {
		if err := e.checkRegRead(in.Src); err != nil {
			return err
		}
	}
	// The load goes through the skb in R6 as it is (bpf_gen_ld_abs), so
	// R6 must point at the context's start, as check_ld_abs's
	// check_ptr_off_reg requires.
	if err := e.checkPtrOffReg(&regs[6], 6, false); err != nil {
		return err
	}
	// r0-r5 are checked as written (check_reg_arg, DST_OP_NO_MARK),
	// which marks them scratched: the log shows r0 after the load.
	for r := uint8(0); r <= 5; r++ {
		e.log.markRegScratched(r)
	}
	for r := 1; r <= 5; r++ {
		regs[r].MarkNotInit()
	}
	e.markUnknown(&regs[0])
	if e.cur.CurFrame > 0 {
		return e.ldAbsSubprogExit()
	}
	return nil
}

// ldAbsSubprogExit models the hidden exit of a failed LD_ABS/LD_IND inside
// a subprogram: at run time a load outside the packet returns 0 from the
// current function. The successful load is queued to continue after the
// instruction; the failure is taken now by returning 0 to the caller.
func (e *env) ldAbsSubprogExit() error {
	if _, err := e.pushStack(e.insnIdx+1, e.insnIdx); err != nil {
		return err
	}
	e.regs()[0].MarkConst(0)
	if _, err := e.processExit(); err != nil {
		return err
	}
	// The return happens inside the instruction (check_ld_abs calls
	// prepare_func_exit itself): the log goes on at the caller with the
	// scratched registers, not with a "from ... to ..." line.
	e.log.printState = false
	// The caller resumes after the call site: step back one slot, as the
	// main loop advances past the instruction just simulated.
	e.insnIdx--
	return nil
}

// atomicPtrTypeOK is atomic_ptr_type_ok: whether the atomic instruction in
// may access memory through register r. Context, packet, flow-key and
// socket pointers are rewritten or guarded by the kernel and take no
// atomics; the arena takes those its JIT can guard. The kernel's
// type_is_sk_pointer compares the whole type, flags included, so a
// maybe-NULL socket passes this test (on a kernel without
// stablefix.AtomicLoadSrcFirst, a load-acquire whose destination is its own
// base register is tested on the loaded value, which can be one).
//
// On kernels with stablefix.LoadAcqProbeMem a load-acquire also refuses the
// pointers a plain load reads through a fault-handling probe (a bare BTF
// pointer, anything untrusted: is_load_acq_unsafe), since the JIT emits it
// as a plain load.
func atomicPtrTypeOK(r *states.Reg, in *insn.Insn, missing stablefix.Set) bool {
	switch r.Type {
	case states.PtrToCtx, states.PtrToPacket, states.PtrToPacketMeta, states.PtrToFlowKeys:
		return false
	case states.PtrToSocket, states.PtrToSockCommon, states.PtrToTCPSock, states.PtrToXDPSock:
		return r.Flags != 0
	case states.PtrToArena:
		return jitSupportsArenaAtomic(*in)
	}
	if in.Imm == insn.AtomicLoadAcq && !missing.Has(stablefix.LoadAcqProbeMem) &&
		((r.Type == states.PtrToBTFID && r.Flags == 0) || r.Flags&states.PtrUntrusted != 0) {
		return false
	}
	return true
}

// checkAtomicLoadStore simulates load-acquire and store-release: the
// access is checked exactly as a plain load or store, and the pointer kind
// is tested after it (the kernel's order, which decides the message), but
// for a load-acquire on a kernel with AtomicLoadSrcFirst, which tests its
// source before the load.
func (e *env) checkAtomicLoadStore(in *insn.Insn) error {
	if in.Imm == insn.AtomicLoadAcq {
		srcFirst := !e.opts.MissingFixes.Has(stablefix.AtomicLoadSrcFirst)
		if srcFirst {
			if err := e.checkAtomicLoadSrc(in); err != nil {
				return err
			}
		}
		if err := e.checkLoadAlign(in, true); err != nil {
			return err
		}
		if !srcFirst {
			return e.checkAtomicLoadSrcType(in)
		}
		return nil
	}
	if err := e.checkStoreAlign(in, true); err != nil {
		return err
	}
	if r := &e.regs()[in.Dst]; !atomicPtrTypeOK(r, in, e.opts.MissingFixes) {
		return e.reject(e.insnIdx, "BPF_ATOMIC stores into R%d %s is not allowed", in.Dst, regTypeStr(r))
	}
	return nil
}

// checkAtomicLoadSrc is the head of check_atomic_load on a kernel with
// AtomicLoadSrcFirst: the source must be readable, and a pointer that
// takes atomics.
func (e *env) checkAtomicLoadSrc(in *insn.Insn) error {
	if err := e.checkRegRead(in.Src); err != nil {
		return err
	}
	return e.checkAtomicLoadSrcType(in)
}

// checkAtomicLoadSrcType refuses a load-acquire through a pointer that
// takes no atomics.
func (e *env) checkAtomicLoadSrcType(in *insn.Insn) error {
	if r := &e.regs()[in.Src]; !atomicPtrTypeOK(r, in, e.opts.MissingFixes) {
		return e.reject(e.insnIdx, "BPF_ATOMIC loads from R%d %s is not allowed", in.Src, regTypeStr(r))
	}
	return nil
}

// checkAtomic simulates the atomic instructions.
func (e *env) checkAtomic(in *insn.Insn) error {
	if in.Imm == insn.AtomicLoadAcq || in.Imm == insn.AtomicStoreRel {
		return e.checkAtomicLoadStore(in)
	}
	const (
		fetch   = 0x01
		xchg    = 0xe0 | fetch
		cmpxchg = 0xf0 | fetch
	)
	size := in.SizeBytes()
	if size != 4 && size != 8 {
		return e.unsupported(e.insnIdx, "atomic operation of size %d", size)
	}
	op := in.Imm
	switch op {
	case int32(insn.ALUAdd), int32(insn.ALUAdd) | fetch, int32(insn.ALUAnd), int32(insn.ALUAnd) | fetch,
		int32(insn.ALUOr), int32(insn.ALUOr) | fetch, int32(insn.ALUXor), int32(insn.ALUXor) | fetch, xchg, cmpxchg:
	default:
		return e.unsupported(e.insnIdx, "atomic operation %#x", op)
	}
	if err := e.checkRegRead(in.Src); err != nil {
		return err
	}
	if err := e.checkRegRead(in.Dst); err != nil {
		return err
	}
	regs := e.regs()
	if op == cmpxchg {
		if err := e.checkRegRead(0); err != nil {
			return err
		}
		if regs[0].IsPointer() && !e.allowPtrLeaks() {
			return e.reject(e.insnIdx, "R0 leaks addr into mem")
		}
	}
	// A privileged loader may store pointers through atomics too: the
	// leak check only binds unprivileged programs (is_pointer_value).
	if regs[in.Src].IsPointer() && !e.allowPtrLeaks() {
		return e.reject(e.insnIdx, "R%d leaks addr into mem", in.Src)
	}
	if !atomicPtrTypeOK(&regs[in.Dst], in, e.opts.MissingFixes) {
		return e.reject(e.insnIdx, "BPF_ATOMIC stores into R%d %s is not allowed", in.Dst, regTypeStr(&regs[in.Dst]))
	}
	loadReg := -1
	if op&fetch != 0 {
		loadReg = int(in.Src)
		if op == cmpxchg {
			loadReg = 0
		}
		// The old value goes to the load register, checked as a
		// destination before the memory (check_reg_arg DST_OP): a
		// fetch into r10 is a write of the frame pointer, and the
		// register is an unknown scalar from here on, so that an
		// atomic whose base register is also its load register (r0 of
		// cmpxchg, src == dst of a fetch) goes through a scalar.
		if err := e.checkRegWrite(uint8(loadReg)); err != nil {
			return err
		}
		e.markUnknown(&regs[loadReg])
	}
	// Read then write the location, as check_atomic_rmw checks it: a
	// read for no register first (a stack location then needs a fixed
	// offset, as check_stack_read asks of any read that fills no
	// register), then, for a fetch, the read that fills the load
	// register.
	if err := e.checkMemAccessAlign(int(in.Dst), int(in.Off), size, accRead, -1, false, true); err != nil {
		return err
	}
	if loadReg >= 0 {
		if err := e.checkMemAccessAlign(int(in.Dst), int(in.Off), size, accRead, loadReg, false, true); err != nil {
			return err
		}
	}
	return e.checkMemAccessAlign(int(in.Dst), int(in.Off), size, accWrite, -1, false, true)
}

// checkEncoding checks what depends on the instruction alone: reserved
// fields and register numbers. The kernel checks them each time do_check
// reaches the instruction, but the answer never changes, so step asks
// once per instruction (env.encodingOK) and the error still appears where
// the walk first reaches it.
func (e *env) checkEncoding(in insn.Insn) error {
	if in.IsLdAbsOrInd() {
		// check_ld_abs asks whether the program type may read the
		// packet this way before it looks at the fields.
		if err := e.checkLdAbsProgType(); err != nil {
			return err
		}
	}
	if ferr := insn.CheckFields(in); ferr != nil {
		return e.reject(e.insnIdx, "%s", ferr.Msg)
	}
	if err := e.checkArenaCastAllowed(in); err != nil {
		return err
	}
	return e.checkOperandNumbers(in)
}

// operand is one register an instruction hands to check_reg_arg, and
// whether as a source (which must be initialised).
type operand struct {
	reg  uint8
	read bool
}

// kernelOperands lists the registers the kernel's handler of in checks
// with check_reg_arg, in its order: the source before the destination for
// ALU operations with a register source (check_alu_op), loads
// (check_load_mem), stores and atomics (check_store_reg,
// check_atomic_rmw); a mov and a load only write their destination. A
// conditional jump reads its destination first (step does it).
func kernelOperands(in insn.Insn) []operand {
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64:
		dst := operand{in.Dst, in.ALUOp() != insn.ALUMov}
		if in.SrcIsReg() && in.ALUOp() != insn.ALUNeg && in.ALUOp() != insn.ALUEnd {
			return []operand{{in.Src, true}, dst}
		}
		return []operand{dst}
	case insn.ClassLDX:
		return []operand{{in.Src, true}, {in.Dst, false}}
	case insn.ClassSTX:
		return []operand{{in.Src, true}, {in.Dst, true}}
	case insn.ClassST:
		return []operand{{in.Dst, true}}
	case insn.ClassJMP, insn.ClassJMP32:
		if in.JmpOp() != insn.JmpCall {
			return []operand{{in.Dst, true}, {in.Src, true}}
		}
	}
	return nil
}

// checkOperandNumbers refuses a register number above r10 as the kernel
// does, when its handler's check_reg_arg reaches it: an operand checked
// before it and not initialised is refused first ("R6 !read_ok" for
// *(u32 *)(r14 -1) = r6).
//
// A load-acquire on a kernel with AtomicLoadSrcFirst tests its source's
// pointer kind before check_load_mem looks at the destination: a valid
// source that takes no atomics is refused for that, whatever the
// destination's number.
func (e *env) checkOperandNumbers(in insn.Insn) error {
	if in.Dst < states.NumRegs && in.Src < states.NumRegs {
		// Every operand kernelOperands lists is one of the two: no
		// need to list them (the list is allocated).
		return nil
	}
	ops := kernelOperands(in)
	bad := slices.IndexFunc(ops, func(o operand) bool { return o.reg >= states.NumRegs })
	if bad < 0 {
		return nil
	}
	for _, o := range ops[:bad] {
		if o.read {
			if err := e.checkRegRead(o.reg); err != nil {
				return err
			}
		}
	}
	if in.Class() == insn.ClassSTX && in.Mode() == insn.ModeATOMIC && in.Imm == insn.AtomicLoadAcq && in.Src < states.NumRegs && !e.opts.MissingFixes.Has(stablefix.AtomicLoadSrcFirst) {
		if err := e.checkAtomicLoadSrcType(&in); err != nil {
			return err
		}
	}
	return e.reject(e.insnIdx, "R%d is invalid", ops[bad].reg)
}

// insnSet is a set of instruction indices.
type insnSet []uint64

func newInsnSet(n int) insnSet { return make(insnSet, (n+63)/64) }

func (s insnSet) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

func (s insnSet) set(i int) { s[i>>6] |= 1 << (i & 63) }
