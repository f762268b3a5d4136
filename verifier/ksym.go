package verifier

// ld_imm64 of a kernel BTF object (BPF_PSEUDO_BTF_ID): the address of a
// kernel variable or function the loader names by its vmlinux BTF id
// (libbpf's typed __ksym externs). The kernel's check_pseudo_btf_id
// resolves the id when the program is loaded, before any instruction is
// simulated, and check_ld_imm then types the register from what it found
// (insn_aux_data.btf_var):
//
//   - a per-CPU variable (one of vmlinux's ".data..percpu" datasec) is
//     PTR_TO_BTF_ID | MEM_PERCPU of the variable's type: not readable
//     directly, only through bpf_per_cpu_ptr/bpf_this_cpu_ptr;
//   - another variable of a struct type is a plain PTR_TO_BTF_ID;
//   - another variable is read-only memory of the type's size;
//   - a function is read-only memory of size 0.
//
// The kernel also needs the symbol's address: a name kallsyms does not
// know (data symbols when the kernel is built without
// CONFIG_KALLSYMS_ALL) refuses the program.

import (
	"fmt"
	"sync"
	"syscall"

	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// ksymVar is the kernel's insn_aux_data.btf_var: the register an ld_imm64
// of a kernel BTF object loads.
type ksymVar struct {
	typ   states.RegType
	flags states.RegFlags
	// aux is the vmlinux type id of a PTR_TO_BTF_ID.
	aux uint32
	// size is the size of a PTR_TO_MEM.
	size int32
	// addr is the symbol's address, which the kernel writes into the
	// instruction (and its log prints).
	addr uint64
}

// percpuDatasec is the vmlinux datasec of per-CPU variables.
const percpuDatasec = ".data..percpu"

// kernelSymbol looks a symbol up in the running kernel's kallsyms (a
// variable so tests can give symbols this kernel lacks).
var kernelSymbol = loader.KernelSymbol

// percpuVars memoises the variables of vmlinux's per-CPU datasec
// (find_btf_percpu_datasec).
var percpuVars = sync.OnceValue(func() map[btf.Type]bool {
	vars := map[btf.Type]bool{}
	spec, err := vmlinux()
	if err != nil {
		return vars
	}
	var ds *btf.Datasec
	if spec.TypeByName(percpuDatasec, &ds) != nil {
		return vars
	}
	for _, vsi := range ds.Vars {
		vars[vsi.Type] = true
	}
	return vars
})

// checkPseudoBTFID is check_pseudo_btf_id for the ld_imm64 at insn i: what
// the load gives, or the reason the kernel refuses the program.
func (e *env) checkPseudoBTFID(i int, in insn.Insn) (ksymVar, error) {
	if in.Imm2 < 0 {
		// btf_get_by_fd: no process has a negative descriptor.
		return ksymVar{}, &RejectError{Insn: i, Msg: "invalid module BTF object FD specified.", errno: syscall.EINVAL}
	}
	if in.Imm2 != 0 {
		// The loader links every typed ksym against vmlinux.
		return ksymVar{}, e.unsupported(i, "ld_imm64 of a kernel module's BTF object")
	}
	spec, err := vmlinux()
	if err != nil {
		return ksymVar{}, e.unsupported(i, "ld_imm64 of a kernel BTF object: %v", err)
	}
	t, err := spec.TypeByID(btf.TypeID(uint32(in.Imm)))
	if err != nil {
		return ksymVar{}, &RejectError{Insn: i, Msg: fmt.Sprintf("ldimm64 insn specifies invalid btf_id %d.", in.Imm)}
	}
	v, isVar := t.(*btf.Var)
	_, isFunc := t.(*btf.Func)
	if !isVar && !isFunc {
		return ksymVar{}, &RejectError{Insn: i, Msg: fmt.Sprintf("pseudo btf_id %d in ldimm64 isn't KIND_VAR or KIND_FUNC", in.Imm)}
	}
	addr, ok, err := kernelSymbol(t.TypeName())
	if err != nil {
		return ksymVar{}, e.unsupported(i, "ld_imm64 of kernel symbol %s: %v", t.TypeName(), err)
	}
	if !ok {
		return ksymVar{}, &RejectError{Insn: i, Msg: fmt.Sprintf("ldimm64 failed to find the address for kernel symbol '%s'.", t.TypeName())}
	}
	k, err := ksymOfType(i, v, isFunc)
	k.addr = addr
	return k, err
}

// ksymOfType is what check_pseudo_btf_id makes of the kernel function
// (isFunc) or variable v loaded at insn i.
func ksymOfType(i int, v *btf.Var, isFunc bool) (ksymVar, error) {
	if isFunc {
		return ksymVar{typ: states.PtrToMem, flags: states.MemRdonly}, nil
	}
	switch target := skipModifiers(v.Type); {
	case percpuVars()[v]:
		return ksymVar{typ: states.PtrToBTFID, flags: states.MemPercpu, aux: btfTypeID(v.Type)}, nil
	case !isStruct(target):
		size, err := btf.Sizeof(target)
		if err != nil {
			return ksymVar{}, &RejectError{Insn: i, Msg: fmt.Sprintf("ldimm64 unable to resolve the size of type '%s': -22", target.TypeName())}
		}
		return ksymVar{typ: states.PtrToMem, flags: states.MemRdonly, size: int32(size)}, nil
	default:
		return ksymVar{typ: states.PtrToBTFID, aux: btfTypeID(v.Type)}, nil
	}
}

// loadKsym is the BPF_PSEUDO_BTF_ID case of check_ld_imm.
func (e *env) loadKsym(dst *states.Reg) {
	k := e.ksyms[e.insnIdx]
	dst.MarkPtr(k.typ, k.flags)
	dst.Aux = k.aux
	dst.Range = k.size
}
