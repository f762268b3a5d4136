package verifier

import (
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// isPktAny reports packet, packet meta and packet end pointers.
func isPktAny(r *states.Reg) bool {
	return r.Type == states.PtrToPacket || r.Type == states.PtrToPacketMeta || r.Type == states.PtrToPacketEnd
}

// regNotNull is reg_not_null: pointer kinds that cannot be NULL. A kernel
// with stablefix.NotNullNoXskBuf (6.18.0) leaves XDP sockets and buffers
// out.
func regNotNull(r *states.Reg, missing stablefix.Set) bool {
	if r.MaybeNull() {
		return false
	}
	switch r.Type {
	case states.PtrToSocket, states.PtrToTCPSock, states.PtrToMapValue, states.PtrToMapKey,
		states.PtrToSockCommon, states.ConstPtrToMap:
		return true
	case states.PtrToXDPSock, states.PtrToBuf:
		return missing.Has(stablefix.NotNullNoXskBuf)
	case states.PtrToMem:
		return r.Flags&states.PtrUntrusted == 0
	case states.PtrToBTFID:
		// Only a trusted pointer (is_trusted_reg: referenced, or trusted
		// with no other modifier such as MEM_RCU or MEM_PERCPU) is known
		// not to be NULL.
		return isTrustedBTF(r)
	}
	return false
}

// provesNotNull is 7.x's reg_not_null, which kernels with
// stablefix.PtrEqNotNull ask of the other pointer of an equality: the
// kinds of regNotNull at an offset that cannot reach BPF_MAX_VAR_OFF
// either way.
func provesNotNull(r *states.Reg, missing stablefix.Set) bool {
	return !offsetMayWrap(r) && regNotNull(r, missing)
}

// offsetMayWrap reports whether a pointer's variable offset may reach
// BPF_MAX_VAR_OFF either way, which 7.x's reg_not_null (and kernels with
// stablefix.PtrVarOffNull or stablefix.PtrEqNotNull) take to leave the
// pointer anywhere, NULL included. (Pointer arithmetic refuses a minimum
// that far down, so only the maximum can get there.)
func offsetMayWrap(r *states.Reg) bool {
	return r.SMin <= -maxVarOff || r.SMax >= maxVarOff
}

// isBranchTaken is is_branch_taken: 1 always, 0 never, -1 unknown.
// missing are the stable fixes the kernel lacks: stablefix.Jmp32PtrNull
// leaves 32-bit compares of pointers undecided, stablefix.PtrVarOffNull
// those of pointers whose variable offset may reach BPF_MAX_VAR_OFF,
// stablefix.NotNullNoXskBuf those of XDP sockets and buffers.
func isBranchTaken(a, b *states.Reg, op uint8, is32 bool, missing stablefix.Set) int {
	if isPktAny(a) && isPktAny(b) && !is32 {
		return pktBranchTaken(a, b, op)
	}
	if a.IsPointer() || b.IsPointer() {
		if is32 && !missing.Has(stablefix.Jmp32PtrNull) {
			// The low half of a valid pointer may be anything, 0
			// included: only the 64-bit compare with 0 is decided.
			return -1
		}
		if !(b.Type == states.ScalarValue && regConst(b, is32)) {
			op = states.FlipJmp(op)
			a, b = b, a
		}
		if !(b.Type == states.ScalarValue && regConst(b, is32)) {
			return -1
		}
		if !regNotNull(a, missing) {
			return -1
		}
		if offsetMayWrap(a) && !missing.Has(stablefix.PtrVarOffNull) {
			return -1
		}
		v := b.Var.Value
		if is32 {
			v = uint64(uint32(v))
		}
		if v != 0 {
			return -1
		}
		switch op {
		case insn.JmpJEQ:
			return 0
		case insn.JmpJNE:
			return 1
		}
		return -1
	}
	return states.BranchTaken(op, &a.Scalar, &b.Scalar, is32)
}

func regConst(r *states.Reg, is32 bool) bool {
	if is32 {
		return r.Var.Subreg().IsConst()
	}
	return r.Var.IsConst()
}

// pktBranchTaken is is_pkt_ptr_branch_taken.
func pktBranchTaken(a, b *states.Reg, op uint8) int {
	var pkt *states.Reg
	switch {
	case b.Type == states.PtrToPacketEnd:
		pkt = a
	case a.Type == states.PtrToPacketEnd:
		pkt = b
		op = states.FlipJmp(op)
	default:
		return -1
	}
	if pkt.Range >= 0 {
		return -1
	}
	switch op {
	case insn.JmpJLE, insn.JmpJGT:
		if pkt.Range == beyondPktEnd {
			return b2i(op == insn.JmpJGT)
		}
	case insn.JmpJLT, insn.JmpJGE:
		if pkt.Range == beyondPktEnd || pkt.Range == atPktEnd {
			return b2i(op == insn.JmpJGE)
		}
	}
	return -1
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// forEachReg visits every register of every frame of st, spilled ones
// included (bpf_for_each_reg_in_vstate).
func forEachReg(st *states.State, fn func(r *states.Reg)) {
	for i := 0; i <= int(st.CurFrame); i++ {
		f := st.Frames[i]
		// A register a packed frame left out is canonical NotInit:
		// nothing any caller changes.
		for r := range states.NumRegs {
			if reg := f.HeldReg(r); reg != nil {
				fn(reg)
			}
		}
		stack := f.HeldStack()
		for s := range stack {
			if stack[s].IsSpilledReg() {
				fn(&stack[s].Spilled)
			}
		}
	}
}

// checkCondJmp is check_cond_jmp_op: decide or split the branch, refine
// both edges.
func (e *env) checkCondJmp(in *insn.Insn) error {
	op := in.JmpOp()
	if err := e.checkRegRead(in.Dst); err != nil {
		return err
	}
	regs := e.regs()
	dst := &regs[in.Dst]
	var fake states.Reg
	src := &fake
	if in.SrcIsReg() {
		if err := e.checkRegRead(in.Src); err != nil {
			return err
		}
		src = &regs[in.Src]
	} else {
		fake.MarkConst(uint64(int64(in.Imm)))
	}
	// A comparison with a stack pointer is recorded so that backtracking
	// does not ask for the pointer's precision.
	var histFlags uint32
	if in.SrcIsReg() && src.Type == states.PtrToStack {
		histFlags |= histSrcRegStack
	}
	if dst.Type == states.PtrToStack {
		histFlags |= histDstRegStack
	}
	if histFlags != 0 {
		e.pushJmpHistory(histFlags)
	}
	is32 := in.Class() == insn.ClassJMP32
	// A register compared with itself is not decided from that alone (the
	// 6.18 kernel only decides it from the value's bounds); its edges are
	// refined through the one register (states.RefineSame).
	sameReg := in.SrcIsReg() && in.Src == in.Dst && dst.Type == states.ScalarValue
	pred := isBranchTaken(dst, src, op, is32, e.opts.MissingFixes)
	if pred >= 0 {
		if !dst.IsPointer() {
			if err := e.markChainPrecision(int(in.Dst)); err != nil {
				return err
			}
		}
		if in.SrcIsReg() && !src.IsPointer() {
			if err := e.markChainPrecision(int(in.Src)); err != nil {
				return err
			}
		}
	}
	if pred >= 0 && e.log.on() {
		// check_cond_jmp_op prints the state of a decided jump at the
		// jump, whatever was scratched (print_insn_state).
		e.log.insnState(e)
	}
	if pred == 1 {
		e.insnIdx += int(in.Off) + 1
		return nil
	}
	if pred == 0 {
		e.insnIdx++
		return nil
	}
	// Linked scalars are recorded in the history before the split so
	// both branches share it.
	linked := e.prec.linked[:0]
	if in.SrcIsReg() && src.Type == states.ScalarValue && src.ID != 0 {
		linked = e.collectLinkedRegs(e.cur, src.ID, linked)
	}
	if dst.Type == states.ScalarValue && dst.ID != 0 {
		linked = e.collectLinkedRegs(e.cur, dst.ID, linked)
	}
	if len(linked) > 1 {
		e.pushJmpHistoryEntry(0, packLinkedRegs(linked))
	}
	other, err := e.pushStack(e.insnIdx+int(in.Off)+1, e.insnIdx)
	if err != nil {
		return err
	}
	// The pushed branch may be packed: it holds both registers, which
	// the jump read.
	ofr := other.Cur()
	odst := ofr.Reg(int(in.Dst))
	osrc := &fake
	var fake2 states.Reg
	if in.SrcIsReg() {
		osrc = ofr.Reg(int(in.Src))
	} else {
		fake2 = fake
		osrc = &fake2
	}
	if sameReg {
		odst.Scalar, _ = states.RefineSame(op, odst.Scalar, is32)
		dst.Scalar, _ = states.RefineSame(states.NegateJmp(op), dst.Scalar, is32)
		// Both operands are the one register, checked in both roles:
		// a constant tnum the first check's reset left out of sync
		// with the unbounded range is reported again.
		if err := e.boundsSanityCheck(refined{trueReg1, &odst.Scalar}, refined{trueReg2, &odst.Scalar},
			refined{falseReg1, &dst.Scalar}, refined{falseReg2, &dst.Scalar}); err != nil {
			return err
		}
		if dst.ID != 0 {
			e.syncLinkedRegs(e.cur, dst, linked)
			e.syncLinkedRegs(other, odst, linked)
		}
	} else if dst.Type == states.ScalarValue && src.Type == states.ScalarValue {
		states.RefineInPlace(op, &odst.Scalar, &osrc.Scalar, is32)
		states.RefineInPlace(states.NegateJmp(op), &dst.Scalar, &src.Scalar, is32)
		if err := e.boundsSanityCheck(refined{trueReg1, &odst.Scalar}, refined{trueReg2, &osrc.Scalar},
			refined{falseReg1, &dst.Scalar}, refined{falseReg2, &src.Scalar}); err != nil {
			return err
		}
	}
	if !sameReg {
		// sync_linked_regs runs for a scalar operand with an id whatever
		// the other operand is: compared with a pointer (which refines
		// nothing), it still hands its state, id included, to the
		// scalars linked to it. A register that was r0 = r2; r0 += 0
		// makes r2 "id=1+0" that way, and r2's next copy or spill then
		// takes a fresh id (assign_scalar_id_before_mov) and leaves the
		// link: kept linked, a later bound on r0 bounded r2's copy too
		// (a false accept, found as a log-only difference by the fuzz
		// run of seed 20263501).
		if in.SrcIsReg() && src.Type == states.ScalarValue && src.ID != 0 {
			e.syncLinkedRegs(e.cur, src, linked)
			e.syncLinkedRegs(other, osrc, linked)
		}
		if dst.Type == states.ScalarValue && dst.ID != 0 {
			e.syncLinkedRegs(e.cur, dst, linked)
			e.syncLinkedRegs(other, odst, linked)
		}
	}
	switch {
	case !is32 && in.SrcIsReg() && dst.IsPointer() && src.IsPointer() && dst.MaybeNull() != src.MaybeNull() &&
		dst.Type != states.PtrToBTFID && src.Type != states.PtrToBTFID &&
		(e.opts.MissingFixes.Has(stablefix.PtrEqNotNull) || provesNotNull(dst, e.opts.MissingFixes) || provesNotNull(src, e.opts.MissingFixes)):
		// Comparing a maybe-null pointer with a non-null one proves the
		// former non-null on the equal edge: that register alone
		// (mark_ptr_not_null_reg), which keeps its id; the other
		// registers of the same lookup stay maybe-null until a
		// comparison with 0 settles them all. On kernels with
		// stablefix.PtrEqNotNull the other pointer must be of a kind
		// that is never NULL (reg_not_null), not merely not marked
		// maybe-NULL: a stack pointer proves nothing.
		if op == insn.JmpJEQ || op == insn.JmpJNE {
			eqState := other
			if op == insn.JmpJNE {
				eqState = e.cur
			}
			eqFrame := eqState.Cur()
			r := eqFrame.Reg(int(in.Src))
			if dst.MaybeNull() {
				r = eqFrame.Reg(int(in.Dst))
			}
			r.Flags &^= states.MaybeNull | states.OuterMapValue
			e.settleNotNull(r)
		}
	case !is32 && !in.SrcIsReg() && in.Imm == 0 && (op == insn.JmpJEQ || op == insn.JmpJNE) && dst.MaybeNull():
		id := dst.ID
		markPtrOrNullID(e.cur, id, op == insn.JmpJNE, e.settleNotNull)
		markPtrOrNullID(other, id, op == insn.JmpJEQ, e.settleNotNull)
	default:
		if !e.matchPktPointers(in, op, dst, src, e.cur, other) && dst.IsPointer() && !e.allowPtrLeaks() {
			return e.reject(e.insnIdx, "R%d pointer comparison prohibited", in.Dst)
		}
	}
	if e.log.on() {
		// check_cond_jmp_op prints the fall-through's state at the
		// jump too: after a report of its own (boundsSanityCheck) the
		// line carries the jump's index.
		e.log.insnState(e)
	}
	e.insnIdx++
	return nil
}

// syncLinkedRegs copies the refined bounds of known to every scalar of
// linked (the set collected before the jump, collectLinkedRegs) that is
// linked to it by id (sync_linked_regs). Scalars left out of the set, such
// as dead registers, keep their bounds, as in the kernel. A scalar refined
// through a delta keeps its own id (upstream "bpf: Preserve id of register
// in sync_linked_regs()"); kernels without that fix give it known's
// (stablefix.SyncLinkedKeepsID).
func (e *env) syncLinkedRegs(st *states.State, known *states.Reg, linked []linkedReg) {
	takesID := e.opts.MissingFixes.Has(stablefix.SyncLinkedKeepsID)
	base := known.ID &^ states.AddConstID
	for _, l := range linked {
		r := l.in(st)
		if r == known || r.Type != states.ScalarValue || r.ID&^states.AddConstID != base {
			continue
		}
		// One link made by a 32-bit operation and the other by a 64-bit
		// one: the deltas are not comparable.
		if (r.ID^known.ID)&states.AddConstID == states.AddConstID {
			continue
		}
		if (r.ID&states.AddConstID == 0 && known.ID&states.AddConstID == 0) || r.Off == known.Off {
			*r = *known
			continue
		}
		// r = known + (r.Off - known.Off)
		id := r.ID
		delta := int64(r.Off) - int64(known.Off)
		res := states.LinkedAdd(known.Scalar, uint64(delta), (r.ID|known.ID)&states.AddConst32ID != 0)
		off := r.Off
		*r = *known
		r.Scalar = res
		if !takesID {
			r.ID = id
		}
		r.Off = off
	}
}

// markPtrOrNullID resolves every maybe-null pointer with id in st: to a
// NULL scalar, or to the non-null pointer. A non-null pointer is handed to
// keepID (which may settle its final type) and loses its id unless keepID
// says it still needs it (a map value holding a spin lock, whose id names
// the lock).
func markPtrOrNullID(st *states.State, id uint32, isNull bool, keepID func(*states.Reg) bool) {
	if id == 0 {
		return
	}
	if isNull {
		// A reference that is NULL was never acquired.
		for i, r := range st.Refs {
			if r.ID == id && r.Kind == states.RefKindPtr {
				st.Refs = append(st.Refs[:i], st.Refs[i+1:]...)
				break
			}
		}
	}
	// forEachReg's walk with its test inline: every NULL check of a
	// pointer walks both branches' registers and spilled slots, and the
	// few that match are all this changes.
	for i := 0; i <= int(st.CurFrame); i++ {
		f := st.Frames[i]
		for r := range states.NumRegs {
			// A register a packed frame left out is NotInit.
			if reg := f.HeldReg(r); reg != nil && reg.Flags&states.MaybeNull != 0 && reg.ID == id {
				markPtrOrNull(reg, isNull, keepID)
			}
		}
		stack := f.HeldStack()
		for s := range stack {
			if sl := &stack[s]; sl.IsSpilledReg() && sl.Spilled.Flags&states.MaybeNull != 0 && sl.Spilled.ID == id {
				markPtrOrNull(&sl.Spilled, isNull, keepID)
			}
		}
	}
}

// markPtrOrNull is mark_ptr_or_null_reg for one maybe-null pointer r of
// the id being settled (markPtrOrNullID).
func markPtrOrNull(r *states.Reg, isNull bool, keepID func(*states.Reg) bool) {
	if isNull {
		r.MarkNull()
		return
	}
	r.Flags &^= states.MaybeNull | states.OuterMapValue
	if keepID == nil || !keepID(r) {
		r.ID = 0
	}
}

// matchPktPointers is try_match_pkt_pointers: a comparison of a packet
// pointer with pkt_end (or meta with data) grows the checked range.
func (e *env) matchPktPointers(in *insn.Insn, op uint8, dst, src *states.Reg, this, other *states.State) bool {
	if !in.SrcIsReg() || in.Class() == insn.ClassJMP32 {
		return false
	}
	pktVsEnd := (dst.Type == states.PtrToPacket && src.Type == states.PtrToPacketEnd) ||
		(dst.Type == states.PtrToPacketMeta && isInitPkt(src, states.PtrToPacket))
	endVsPkt := (dst.Type == states.PtrToPacketEnd && src.Type == states.PtrToPacket) ||
		(isInitPkt(dst, states.PtrToPacket) && src.Type == states.PtrToPacketMeta)
	dno, sno := int(in.Dst), int(in.Src)
	switch op {
	case insn.JmpJGT:
		if pktVsEnd {
			findGoodPktPointers(this, dst, false)
			markPktEnd(other, dno, true)
		} else if endVsPkt {
			findGoodPktPointers(other, src, true)
			markPktEnd(this, sno, false)
		} else {
			return false
		}
	case insn.JmpJLT:
		if pktVsEnd {
			findGoodPktPointers(other, dst, true)
			markPktEnd(this, dno, false)
		} else if endVsPkt {
			findGoodPktPointers(this, src, false)
			markPktEnd(other, sno, true)
		} else {
			return false
		}
	case insn.JmpJGE:
		if pktVsEnd {
			findGoodPktPointers(this, dst, true)
			markPktEnd(other, dno, false)
		} else if endVsPkt {
			findGoodPktPointers(other, src, false)
			markPktEnd(this, sno, true)
		} else {
			return false
		}
	case insn.JmpJLE:
		if pktVsEnd {
			findGoodPktPointers(other, dst, false)
			markPktEnd(this, dno, true)
		} else if endVsPkt {
			findGoodPktPointers(this, src, true)
			markPktEnd(other, sno, false)
		} else {
			return false
		}
	default:
		return false
	}
	return true
}

func isInitPkt(r *states.Reg, t states.RegType) bool {
	return r.Type == t && r.Off == 0 && r.Var.IsConst() && r.Var.Value == 0
}

// findGoodPktPointers is find_good_pkt_pointers: every packet pointer with
// the same id gains the range the comparison proved.
func findGoodPktPointers(st *states.State, ptr *states.Reg, rightOpen bool) {
	if ptr.Off < 0 || (ptr.Off == 0 && rightOpen) {
		return
	}
	if ptr.UMax > maxPacketOff || ptr.UMax+uint64(ptr.Off) > maxPacketOff {
		return
	}
	newRange := ptr.Off
	if rightOpen {
		newRange++
	}
	t, id := ptr.Type, ptr.ID
	forEachReg(st, func(r *states.Reg) {
		if r.Type == t && r.ID == id && r.Range < newRange {
			r.Range = newRange
		}
	})
}

// markPktEnd records that a packet pointer is at or beyond pkt_end.
func markPktEnd(st *states.State, regno int, rangeOpen bool) {
	r := st.Cur().Reg(regno)
	if r.Type != states.PtrToPacket {
		return
	}
	if rangeOpen {
		r.Range = beyondPktEnd
	} else {
		r.Range = atPktEnd
	}
}

// refined is a register a conditional jump refined, with the role
// reg_set_min_max names it by in the kernel's report.
type refined struct {
	role refinedRole
	s    *states.Scalar
}

// refinedRole is which operand of which edge a refined register is. It is
// an index rather than the name itself: a string field would make escape
// analysis move the scalars a jump refines to the heap (the name reaches
// the log's interface arguments, and a struct's fields leak together),
// four allocations per conditional jump.
type refinedRole uint8

// The roles of refined registers, in refinedNames' order.
const (
	trueReg1 refinedRole = iota
	trueReg2
	falseReg1
	falseReg2
)

// refinedNames are the names reg_set_min_max gives the refined registers.
var refinedNames = [...]string{"true_reg1", "true_reg2", "false_reg1", "false_reg2"}

// boundsSanityCheck is reg_bounds_sanity_check on the registers a
// conditional jump refined, in reg_set_min_max's order (the taken edge's
// two, then the fall-through's): bounds left inconsistent, which only an
// infeasible edge gives, are reported in the log and reset to unbounded
// (keeping the tnum), one register at a time, and the path goes on.
func (e *env) boundsSanityCheck(regs ...refined) error {
	for _, r := range regs {
		if r.s.Sane() {
			continue
		}
		if err := e.reportInsane(refinedNames[r.role], r.s); err != nil {
			return err
		}
	}
	return nil
}

// reportInsane is reg_bounds_sanity_check for the scalar part s of a
// register that fails it (Scalar.Sane, which callers test first), ctx
// naming the check's place as the kernel's log does: bounds that
// contradict one another or a constant tnum are reported and reset to
// unbounded (keeping the tnum: the register is left as inconsistent as
// the tnum makes it, and a copy of it is reported again where the kernel
// checks it: after an ALU instruction, "alu", or a load, "ldx"). Under
// BPF_F_TEST_REG_INVARIANTS the kernel fails the load there instead, with
// a verifier_bug warning (EFAULT): a program no comparison may load
// (ErrKernelFault).
func (e *env) reportInsane(ctx string, s *states.Scalar) error {
	v := s.Violation()
	if e.log.on() {
		e.log.printf("verifier bug: REG INVARIANTS VIOLATION (%s): %s u64=[%#x, %#x] s64=[%#x, %#x] u32=[%#x, %#x] s32=[%#x, %#x] var_off=(%#x, %#x)\n",
			ctx, v, s.UMin, s.UMax, uint64(s.SMin), uint64(s.SMax), s.U32Min, s.U32Max, uint32(s.S32Min), uint32(s.S32Max), s.Var.Value, s.Var.Mask)
	}
	if e.progFlags()&loader.FlagTestRegInvariants != 0 {
		return e.kernelFault("%s: the 6.18 verifier reports \"verifier bug: REG INVARIANTS VIOLATION (%s)\" with a kernel warning under BPF_F_TEST_REG_INVARIANTS", v, ctx)
	}
	*s = s.Unbounded()
	return nil
}
