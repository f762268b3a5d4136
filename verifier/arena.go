package verifier

// BPF arenas (BPF_MAP_TYPE_ARENA): a sparse region of pages that a program
// and user space share, at up to 4 GiB of addresses. The program sees the
// region through the kernel's mapping of it; pointers stored in it are the
// user-space addresses. The 6.18 verifier models it lightly:
//
//   - a program that names an arena map anywhere (resolve_pseudo_ldimm64
//     then check_map_prog_compatibility) has an arena; only one;
//   - "rX = addr_space_cast(rY, 0, 1)" (BPF_ALU64|BPF_MOV|BPF_X, off 1,
//     imm 1) turns any register into PTR_TO_ARENA, an arena pointer with
//     unknown bounds; the opposite cast (imm 1<<16) gives an unknown scalar
//     (check_alu_op); a program without an arena may use neither;
//   - any arithmetic with an arena pointer gives an arena pointer
//     (adjust_reg_min_max_vals); loads and stores through it are not
//     bounded (check_mem_access; the JIT turns them into PROBE_MEM32
//     accesses that fault safely), a load gives an unknown scalar;
//   - an ld_imm64 of an arena global (BPF_PSEUDO_MAP_VALUE on the arena
//     map) is an unknown scalar: the user address of the variable
//     (check_ld_imm);
//   - the arena kfuncs take the map as a "__map" argument
//     (KF_ARG_PTR_TO_MAP) and return a void pointer: an unknown scalar,
//     cast to an arena pointer before use;
//   - states compare arena pointers as equal whatever their bounds
//     (regsafe).

import (
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// arenaMapStruct is the kernel struct of an arena map (arena_map_ops'
// map_btf_id), which loads through the map pointer read.
const arenaMapStruct = "bpf_arena"

// bpfMapStruct is the struct a "__map" kfunc argument must point to.
const bpfMapStruct = "bpf_map"

// noteArena records that instruction i names arena map m, as
// check_map_prog_compatibility sets prog->aux->arena the first time the
// program uses an arena: a second, different arena is refused. The
// capability check that follows passes for the root loader vercheck
// models; an interpreting kernel refuses arenas (only a JIT turns arena
// accesses into accesses of the kernel's mapping); the user address check
// passes, since loaders map the arena (libbpf mmap()s it when map_extra
// does not place it).
func (e *env) noteArena(i int, m *loader.Map) error {
	if m.Type != ebpf.Arena {
		return nil
	}
	if e.arena != nil && e.arena != m {
		return &RejectError{Insn: i, Msg: "Only one arena per program"}
	}
	if e.build.Interpreted {
		return &RejectError{Insn: i, Msg: "JIT is required to use arena", errno: syscall.EOPNOTSUPP}
	}
	e.arena = m
	return nil
}

// checkArenaCastAllowed is check_alu_op's test that an address-space cast
// belongs to a program with an arena, made before its registers are read.
func (e *env) checkArenaCastAllowed(in insn.Insn) error {
	if !isAddrSpaceCast(in) || e.arena != nil {
		return nil
	}
	return e.reject(e.insnIdx, "addr_space_cast insn can only be used in a program that has an associated arena")
}

// isAddrSpaceCast reports whether in is BPF_ALU64|BPF_MOV|BPF_X with the
// address-space cast's off (its immediate is checked by CheckFields).
func isAddrSpaceCast(in insn.Insn) bool {
	return in.Class() == insn.ClassALU64 && in.ALUOp() == insn.ALUMov && in.SrcIsReg() && in.Off == insn.OffAddrSpaceCast
}

// addrSpaceCast sets dst after "dst = addr_space_cast(src, ...)": whatever
// src held, an arena pointer after a cast to the kernel's address space,
// an unknown scalar after a cast to the user's (check_alu_op's
// mark_reg_unknown, then the type).
func (e *env) addrSpaceCast(dst *states.Reg, imm int32) {
	e.markUnknown(dst)
	if imm == insn.CastToKernel {
		dst.Type = states.PtrToArena
	}
}

// holdsMapPtr answers, for a "__map" kfunc argument, whether the kernel
// finds a map pointer in the register: check_kfunc_args reads reg->map_ptr
// whatever the register's type, and that field shares a union with the
// BTF pointer (btf) and the sizes of other pointer kinds. known is false
// for the types whose union vercheck does not track.
func holdsMapPtr(reg *states.Reg) (set, known bool) {
	switch reg.Type {
	case states.ConstPtrToMap, states.PtrToMapValue, states.PtrToMapKey, states.PtrToBTFID:
		return true, true
	case states.ScalarValue, states.PtrToStack, states.PtrToCtx, states.PtrToArena:
		// Every way of making these clears the union (__mark_reg_known,
		// __mark_reg_unknown).
		return false, true
	case states.PtrToMem:
		if reg.Flags&states.PtrUntrusted != 0 {
			// Untrusted memory from a BTF walk: the union holds its
			// size, 0, and no dynptr id (mark_btf_ld_reg).
			return reg.Range != 0, true
		}
	}
	return false, false
}

// checkKfuncMapArg is the first check of a KF_ARG_PTR_TO_MAP argument in
// check_kfunc_args: the register must hold a map pointer. The trust check
// and the struct bpf_map match follow with the BTF pointer arguments'.
func (e *env) checkKfuncMapArg(info *kfuncInfo, regno int, reg *states.Reg) error {
	set, known := holdsMapPtr(reg)
	if !known {
		return e.unsupported(e.insnIdx, "kfunc %s map argument R%d of type %s", info.name, regno, regTypeStr(reg))
	}
	if !set {
		return e.reject(e.insnIdx, "pointer in R%d isn't map pointer", regno)
	}
	return nil
}

// jitSupportsArenaAtomic is the x86-64 JIT's bpf_jit_supports_insn for an
// atomic instruction on the arena: the arena's faults are caught around
// each instruction the JIT emits, and the fetching and, or and xor (a
// compare-and-exchange loop there) are not guarded.
func jitSupportsArenaAtomic(in insn.Insn) bool {
	if size := in.SizeBytes(); size != 4 && size != 8 {
		return true
	}
	switch in.Imm {
	case insn.AtomicAnd | insn.AtomicFetch, insn.AtomicOr | insn.AtomicFetch, insn.AtomicXor | insn.AtomicFetch:
		return false
	}
	return true
}
