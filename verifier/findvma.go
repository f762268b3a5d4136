package verifier

// BTF-typed helper arguments and returns, and the two synchronous
// callbacks whose arguments are kernel objects: bpf_find_vma (a task and a
// vm_area_struct) and bpf_user_ringbuf_drain (a read-only dynptr).
//
// An ARG_PTR_TO_BTF_ID argument takes a PtrToBTFID register that is plain,
// trusted or RCU protected (the kernel's btf_ptr_types; an untrusted or
// maybe-NULL pointer is refused by its type), pointing to the struct the
// prototype names or to a struct that begins with it. The _OR_NULL kind
// also takes NULL, or a pointer that may be NULL.

import (
	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/states"
)

// fnSkRelease is bpf_sk_release, whose socket argument alone may be given
// as any socket struct (not strictly the one the prototype names).
const fnSkRelease = 86

// btfPtrArgFlags are the flag sets a PtrToBTFID register may carry to be
// an ARG_PTR_TO_BTF_ID argument (btf_ptr_types).
var btfPtrArgFlags = [...]states.RegFlags{0, states.PtrTrusted, states.MemRCU}

// btfPtrArgExpected is how check_reg_type lists btfPtrArgFlags.
const btfPtrArgExpected = "ptr_, trusted_ptr_, rcu_ptr_"

// btfVMAStruct is the struct bpf_find_vma's callback gets a pointer to.
const btfVMAStruct = "vm_area_struct"

// checkBTFIDArg is check_reg_type and check_func_arg_reg_off for an
// ARG_PTR_TO_BTF_ID (or _OR_NULL) argument i. The pointer bpf_kptr_xchg
// moves into kptr (not nil) must match the kptr's struct instead of the
// prototype's.
func (e *env) checkBTFIDArg(i int, fn *helpers.Proto, a helpers.ArgType, kptr *kptrField) error {
	regno := i + 1
	reg := &e.regs()[regno]
	orNull := a == helpers.ArgPtrToBTFIDOrNull
	if orNull && reg.IsNull() {
		return nil
	}
	flags := reg.Flags
	if orNull {
		flags &^= states.MaybeNull
	}
	// An allocated object is bpf_kptr_xchg's source like a plain BTF
	// pointer (check_reg_type), but only an owned one, per-CPU or not,
	// matches a case of its later switch: one that may be NULL, or one
	// loaded from a kptr inside an RCU section (MEM_RCU), matches none.
	xchgObj := fn.ID == fnKptrXchg && regno == 2 && reg.Flags&states.MemAlloc != 0
	if xchgObj {
		flags &^= states.MemAlloc | states.MemPercpu
	}
	ok := false
	if reg.Type == states.PtrToBTFID {
		for _, f := range btfPtrArgFlags {
			if flags == f {
				ok = true
				break
			}
		}
	}
	if !ok {
		return e.reject(e.insnIdx, "R%d type=%s expected=%s", regno, regTypeStr(reg), btfPtrArgExpected)
	}
	release := fn.ReleaseArg == int8(regno)
	if xchgObj && reg.Flags != states.MemAlloc && reg.Flags != states.MemAlloc|states.MemPercpu {
		return e.verifierBug("invalid PTR_TO_BTF_ID register for type match")
	}
	if reg.MaybeNull() && (!orNull || release) {
		return e.reject(e.insnIdx, "Possibly NULL pointer passed to helper arg%d", regno)
	}
	if fn.ID == fnKptrXchg {
		if err := e.mapKptrMatchType(kptr, reg, regno); err != nil {
			return err
		}
		return e.checkFuncArgRegOff(reg, regno, release)
	}
	wantName := fn.ArgBTFName[i]
	want := btfStructByName(wantName)
	have := btfTypeByID(reg.Aux)
	if want == nil || have == nil {
		return e.unsupported(e.insnIdx, "argument %d of helper %s#%d: struct %s not in kernel BTF", regno, fn.Name, fn.ID, wantName)
	}
	strict := release && fn.ID != fnSkRelease
	same, reason, err := btfStructIDsMatch(have, int(reg.Off), want, strict)
	e.logWalkReason(reason)
	if err != nil {
		return e.unsupported(e.insnIdx, "argument %d of helper %s#%d at off %d into struct %s: %v", regno, fn.Name, fn.ID, reg.Off, have.TypeName(), err)
	}
	if !same {
		return e.reject(e.insnIdx, "R%d is of type %s but %s is expected", regno, have.TypeName(), wantName)
	}
	return e.checkFuncArgRegOff(reg, regno, release)
}

// setRetBTFID sets r0 for a helper returning a BTF pointer of vmlinux
// (check_helper_call's RET_PTR_TO_BTF_ID case: the register takes the
// return kind's flags; a plain return such as bpf_task_pt_regs's is the
// legacy, untagged PTR_TO_BTF_ID). bpf_kptr_xchg returns the struct of
// its kptr.
func (e *env) setRetBTFID(fn *helpers.Proto, r0 *states.Reg, kptr *kptrField) error {
	var flags states.RegFlags
	switch fn.Ret {
	case helpers.RetPtrToBTFIDOrNull:
		flags = states.MaybeNull
	case helpers.RetPtrToBTFIDTrusted:
		flags = states.PtrTrusted
	}
	id := uint32(0)
	if fn.ID == fnKptrXchg && kptr.local != nil {
		// An object of the program's type comes out allocated, per-CPU
		// from a per-CPU kptr.
		flags |= states.MemAlloc
		if kptr.kind == kptrPercpu {
			flags |= states.MemPercpu
		}
		r0.MarkPtr(states.PtrToBTFID, flags)
		r0.Aux = e.kptrObjectAux(kptr)
		return nil
	}
	if fn.ID == fnKptrXchg {
		id = kptr.target
	} else if t := btfStructByName(fn.RetBTFName); t != nil {
		id = btfTypeID(t)
	}
	if id == 0 {
		return e.unsupported(e.insnIdx, "helper %s#%d returns struct %s, not in kernel BTF", fn.Name, fn.ID, fn.RetBTFName)
	}
	r0.MarkPtr(states.PtrToBTFID, flags)
	r0.Aux = id
	return nil
}

// setFindVMACallbackState is set_find_vma_callback_state:
// callback(task, vma, ctx) for bpf_find_vma(task, addr, cb, ctx, flags).
// The vma is a plain (legacy) BTF pointer.
func setFindVMACallbackState(vmaID uint32) calleeSetup {
	return func(e *env, caller, callee *states.Frame) {
		callee.Regs()[1] = *caller.Reg(1)
		callee.Regs()[2].MarkPtr(states.PtrToBTFID, 0)
		callee.Regs()[2].Aux = vmaID
		callee.Regs()[3] = *caller.Reg(4)
	}
}

// setUserRingbufCallbackState is set_user_ringbuf_callback_state:
// callback(dynptr, ctx) for bpf_user_ringbuf_drain(map, cb, ctx, flags).
func setUserRingbufCallbackState(e *env, caller, callee *states.Frame) {
	e.markDynptrCallbackReg(&callee.Regs()[1], dynptrLocal)
	callee.Regs()[2] = *caller.Reg(3)
}

// vmaTypeID is the vmlinux id of struct vm_area_struct, or 0.
func vmaTypeID() uint32 {
	t := btfStructByName(btfVMAStruct)
	if t == nil {
		return 0
	}
	return btfTypeID(t)
}
