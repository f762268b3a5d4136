package verifier

// bpf_per_cpu_ptr (#153) and bpf_this_cpu_ptr (#154): the address of one
// CPU's copy of a per-CPU object. Their argument is ARG_PTR_TO_PERCPU_BTF_ID
// (percpu_btf_ptr_types: a per-CPU BTF pointer, plain as a per-CPU ksym
// loads it, RCU protected as a __percpu_kptr loads it, or trusted), and
// the result (RET_PTR_TO_MEM_OR_BTF_ID, check_helper_call) is one CPU's
// copy: read-only memory of the type's size for a scalar type, a BTF
// pointer for a struct, and, for an object of bpf_percpu_obj_new (an RCU
// pointer), the program's own object, allocated and RCU protected.
// bpf_per_cpu_ptr's result may be NULL (an invalid cpu) unless it is such
// an object, whose return type the kernel builds without the prototype's
// flags.

import (
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/states"
)

// Helper ids of the per-CPU pointer helpers.
const (
	fnPerCPUPtr  = 153
	fnThisCPUPtr = 154
)

// percpuBTFArgFlags are the flag sets of percpu_btf_ptr_types, in the
// order check_reg_type lists them (percpuBTFArgExpected).
var percpuBTFArgFlags = [...]states.RegFlags{states.MemPercpu, states.MemPercpu | states.MemRCU, states.MemPercpu | states.PtrTrusted}

// percpuBTFArgExpected is how check_reg_type lists percpuBTFArgFlags.
const percpuBTFArgExpected = "percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_"

// checkPercpuBTFArg is check_reg_type, check_func_arg_reg_off and the
// ARG_PTR_TO_PERCPU_BTF_ID case of check_func_arg for argument regno.
func (e *env) checkPercpuBTFArg(regno int, reg *states.Reg, meta *callMeta) error {
	ok := false
	for _, f := range percpuBTFArgFlags {
		ok = ok || reg.Type == states.PtrToBTFID && reg.Flags == f
	}
	if !ok {
		return e.reject(e.insnIdx, "R%d type=%s expected=%s", regno, regTypeStr(reg), percpuBTFArgExpected)
	}
	if err := e.checkPtrOffReg(reg, regno, false); err != nil {
		return err
	}
	if reg.Aux == 0 {
		return e.reject(e.insnIdx, "Helper has invalid btf_id in R%d", regno)
	}
	meta.retBTFID = reg.Aux
	return nil
}

// percpuAllocArg is the BPF_FUNC_per_cpu_ptr/this_cpu_ptr case of
// check_helper_call, before the arguments are cleared: whether r1 is a
// per-CPU object of bpf_percpu_obj_new (an RCU pointer, which must name
// a struct), whose copy the helper returns as an allocated object.
func (e *env) percpuAllocArg(r1 *states.Reg) (bool, error) {
	if r1.Flags&states.MemRCU == 0 {
		return false, nil
	}
	if t := e.btfTypeOf(r1.Aux); t == nil || !isStruct(t) {
		return false, e.reject(e.insnIdx, "Helper has invalid btf/btf_id in R1")
	}
	return true, nil
}

// setRetMemOrBTFID is the RET_PTR_TO_MEM_OR_BTF_ID case of
// check_helper_call: r0 points to one CPU's copy of the type the argument
// named. retFlags are the prototype's return flags.
func (e *env) setRetMemOrBTFID(r0 *states.Reg, meta *callMeta, retFlags states.RegFlags, allocObj bool) error {
	t := e.btfTypeOf(meta.retBTFID)
	if t == nil {
		return e.unsupported(e.insnIdx, "per-CPU object of BTF type id %d not in kernel BTF", meta.retBTFID)
	}
	t = skipModifiers(t)
	switch {
	case !isStruct(t):
		size, err := btf.Sizeof(t)
		if err != nil {
			return e.reject(e.insnIdx, "unable to resolve the size of type '%s': -22", t.TypeName())
		}
		r0.MarkPtr(states.PtrToMem, retFlags)
		r0.Range = int32(size)
	case allocObj:
		r0.MarkPtr(states.PtrToBTFID, states.MemAlloc|states.MemRCU)
		r0.Aux = meta.retBTFID
	default:
		// MEM_RDONLY does not apply to a BTF pointer.
		r0.MarkPtr(states.PtrToBTFID, retFlags&^states.MemRdonly)
		r0.Aux = meta.retBTFID
	}
	return nil
}

// percpuRetFlags are the return flags of the per-CPU pointer helpers'
// prototypes: read-only, and maybe NULL for bpf_per_cpu_ptr.
func percpuRetFlags(id int32) states.RegFlags {
	if id == fnPerCPUPtr {
		return states.MaybeNull | states.MemRdonly
	}
	return states.MemRdonly
}
