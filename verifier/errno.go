package verifier

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Error numbers the kernel answers a rejection with. Most of do_check's
// failures are EACCES; checks of the program's shape, of arguments and of
// references return EINVAL; the size limits E2BIG; its internal sanity
// checks EFAULT. Measured on the live 6.18 kernel over testdata/progs.
const (
	errnoENOTSUPP = syscall.Errno(524) // the kernel-internal ENOTSUPP
)

// ErrnoName names errno as the kernel's headers do ("EINVAL"), including
// the kernel-internal ENOTSUPP (524), which userspace headers lack and
// bpf() returns for some refusals; an errno without a name is "errno N".
func ErrnoName(errno syscall.Errno) string {
	if errno == errnoENOTSUPP {
		return "ENOTSUPP"
	}
	if name := unix.ErrnoName(errno); name != "" {
		return name
	}
	return fmt.Sprintf("errno %d", int(errno))
}

// einvalMessages are the starts (or, with a leading "*", pieces) of
// messages whose check returns EINVAL.
var einvalMessages = []string{
	"At callback return the register", "At program exit the register", "At subprogram exit the register",
	"At async callback return the register",
	"*would lead to reference leak", "*cannot be called from callback subprog", "unmatched attempt to enable preemption",
	"*must have global linkage", "exception cb only supports single integer argument", "*cannot call exception cb directly",
	"expected prog array map for tail call",
	"Caller passes invalid args into func#", "Dynptr has to be an uninitialized dynptr", "Expected an initialized dynptr as arg #",
	"*is not a scalar", "Type '", "*reference has not been acquired before", "*must be a rcu pointer", "*must be a known constant", "*must be referenced or trusted",
	"Unknown type ID", "*expected pointer to ctx, but got", "*expected pointer to stack or const struct bpf_dynptr",
	"cannot call GPL-restricted function from non-GPL compatible program", "*is only allowed in",
	"expected an initialized iter_", "expected uninitialized iter_", "*is not pointing to valid bpf_map",
	"helper call is not allowed in probe", "helper call might sleep in a non-sleepable prog",
	"infinite loop detected at insn", "invalid variable-offset read from stack", "invalid variable-offset write to stack",
	"kfunc bpf_rdonly_cast type ID argument must be", "math between", "program of this type cannot use helper",
	"*pointer offset", "*pointer be out of bounds",
	"the prog does not allow writes to packet data", "missing btf func_info", "callback function not static",
	"number of funcs in func_info doesn't match number of subprogs", "func_info BTF section doesn't match subprog layout",
	"unreachable insn", "back-edge from insn", "jump out of range", "unknown opcode",
	"last insn is not an exit or jmp", "invalid BPF_LD_IMM insn", "BPF_LD_IMM64 uses reserved fields",
	"invalid kernel function call not eliminated in verifier pass", "BPF_LDX uses reserved fields",
	"BPF_STX uses reserved fields", "BPF_ST uses reserved fields", "BPF_ALU uses reserved fields",
	"BPF_MOV uses reserved fields", "BPF_NEG uses reserved fields", "BPF_END uses reserved fields",
	"invalid func unknown#", "unknown func", "cannot spill pointers to stack into stack frame of the caller",
	"Invalid format string", "*doesn't support non-zero flags", "*is an unacquired reference",
	"cannot overwrite referenced dynptr", "cannot release unowned const bpf_dynptr",
	"Sleepable programs can only use", "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable",
	"Syscall programs can only be sleepable", "*cannot use bpf_spin_lock yet", "*doesn't have field at offset",
	"*must be referenced when passed to release function", "function calls are not allowed while holding a lock",
	"nested rcu read lock", "unmatched rcu read unlock", "*cannot be used inside", "sleepable helper",
	"*a non-sleepable BPF program context", "*must have zero offset when passed to release func",
	"cannot pass map_type", "bpf_spin_unlock without taking a lock", "bpf_spin_unlock of different lock",
	"*doesn't point to 'struct", "*has no valid bpf_spin_lock", "*has no valid kptr", "use static function instead",
	"timer pointer in", "*doesn't match map pointer in",
	"tracing progs cannot use bpf_", "*failed callback verification", "async callback in a session program",
	"bpf_obj_new/bpf_percpu_obj_new", "metadata kfuncs require device-bound program", "local type ID argument must be", "*expected pointer to allocated object",
	"*expected for bpf_obj_drop_impl()", "allocated object must be referenced",
	"*expected for bpf_percpu_obj_drop_impl()", "bpf_percpu_obj_new type",
	"*isn't KIND_VAR or KIND_FUNC", "ldimm64 unable to resolve the size of type", "unable to resolve the size of type",
	"*must be held for bpf_", "*not found at offset=", "operation on bpf_", "arg#1 offset=",
	"*can only take non-owning or refcounted", "*doesn't point to a type with bpf_refcount field",
	"*is neither owning or non-owning ref", "*not allowed in rbtree cb", "*expected pointer to map value or allocated object",
	"*expected pointer to func", "*cannot use bpf_{list_head,rb_root} yet", "*doesn't have constant offset",
	"same insn cannot be used with different pointers", "*expected pointer to STRUCT", "*or socket",
	"or mark the callee with __attribute__((nomerge))",
	"addr_space_cast insn can only", "*isn't map pointer", "*doesn't point to a map value",
	"*has no valid bpf_wq", "*cannot use bpf_wq yet",
	"*must point to scalar, or struct with scalar",
	"at the time of BPF_LD_ABS|IND R6 != pointer to skb", "BPF_LD_[ABS|IND] instructions not allowed for this program type",
	"BPF_LD_[ABS|IND] uses reserved fields", "*is not allowed in subprogs without BTF",
	"tail_calls are not allowed in non-JITed programs",
	"expected an initialized irq flag as arg#", "expected uninitialized irq flag as arg#",
	"*doesn't point to an irq flag on stack", "irq flag acquired by",
	"*has no valid bpf_res_spin_lock", "bpf_res_spin_unlock without taking a lock",
	"bpf_res_spin_unlock of different lock", "*_unlock cannot be out of order",
	"Acquiring the same lock again", "*doesn't point to map value or allocated object",
	"*doesn't point to a const string",
	"*has no valid bpf_timer", "*is more than the allocator serves", "*has to have BTF in order to use",
	"*the kernel denies tracing this function", "The function ", "*() is not modifiable",
	"Attaching fexit/fmod_ret to __noreturn functions is rejected.",
	// Static checks of the instruction stream (do_check's reserved
	// fields, check_atomic, check_cond_jmp_op, check_alu_op,
	// resolve_pseudo_ldimm64, add_subprog, add_kfunc_call, check_cfg,
	// check_btf_line): an audit of every opcode against the live kernel.
	"BPF_ATOMIC uses invalid atomic opcode", "invalid atomic operand size", "BPF_JMP/JMP32 uses reserved fields",
	"BPF_JA uses reserved fields", "BPF_CALL uses reserved fields", "BPF_EXIT uses reserved fields",
	"invalid may_goto imm", "div by zero", "no direct value access support for this map type",
	"unrecognized bpf_ld_imm64 insn", "direct value offset of", "failed to find BTF for kernel function",
	"kernel btf_id ", "call to invalid destination", "Invalid insn code at line_info[",
	"jump into the middle of ldimm64 insn", "invalid module BTF object FD specified.",
	// Measured over the 6.12 selftests' rejections.
	"string is not zero-terminated", "release kernel function ", "struct ops programs must have a GPL compatible license",
	"LSM programs must have a GPL compatible license", "*doesn't return scalar. Only those are supported.",
	"Cannot access kernel '", "cannot call kernel function from non-GPL compatible program",
	"*expected pointer to an iterator on stack", "invalid shift ", "*has no valid bpf_task_work",
	"missing bpf_line_info for func#", "*has pointer tag, but is not a pointer type", "*has invalid combination of tags",
	"*cannot be combined with any other tags", "*but only struct or primitive types are allowed",
}

// Errno is the error number the kernel's bpf(BPF_PROG_LOAD) would return
// for this result: 0 for an accepted program, else by the kind of check
// that failed. Unsupported features, timeouts and the state-memory limit,
// where vercheck has no verdict, give EOPNOTSUPP, ETIMEDOUT and ENOMEM (the
// kernel's errno when its verifier runs out of memory).
func (r *Result) Errno() syscall.Errno {
	switch {
	case r.Accepted:
		return 0
	case errors.Is(r.Err, ErrUnsupported):
		return syscall.EOPNOTSUPP
	case errors.Is(r.Err, ErrTimeout):
		return syscall.ETIMEDOUT
	case errors.Is(r.Err, ErrMemoryLimit):
		return syscall.ENOMEM
	case r.Err == nil:
		return 0
	}
	var re *RejectError
	if errors.As(r.Err, &re) {
		// The rejection's own message: a wrapping (Verify's note that
		// it is cilium/ebpf's relocation of the program) is no part of
		// what the kernel logs.
		return re.errnoOrMessage()
	}
	return messageErrno(lastLine(r.Err.Error()))
}

// errno is the error number of rejection re: its own, else its message's.
func (re *RejectError) errnoOrMessage() syscall.Errno {
	if re.errno != 0 {
		return re.errno
	}
	return messageErrno(lastLine(re.Msg))
}

// messageErrno maps a rejection's decisive message to its errno.
func messageErrno(msg string) syscall.Errno {
	switch {
	case strings.HasPrefix(msg, "BPF program is too large"), strings.HasPrefix(msg, "the call stack of"),
		strings.HasPrefix(msg, "too many subprograms"):
		return syscall.E2BIG
	case strings.HasPrefix(msg, "invalid insn idx"):
		// do_check's sanity check of the walk's index.
		return syscall.EFAULT
	case strings.HasPrefix(msg, "The sequence of"), strings.HasPrefix(msg, "verifier bug"):
		return syscall.EFAULT
	case strings.Contains(msg, "not supported for program type"), strings.HasSuffix(msg, "supported only for fentry/fexit/fmod_ret programs"),
		strings.HasPrefix(msg, "attach to unsupported member"),
		strings.HasPrefix(msg, "attach_btf_id ") && strings.HasSuffix(msg, " is not a supported struct"):
		// check_struct_ops_btf_id passes check_member's -ENOTSUPP on, and
		// gives its own for an ops type no descriptor was registered for.
		return errnoENOTSUPP
	case strings.HasPrefix(msg, "fd_idx without fd_array is invalid"), strings.HasPrefix(msg, "expected an RCU CS when using"):
		return syscall.EPROTO
	case strings.HasPrefix(msg, "ldimm64 failed to find the address"), strings.HasPrefix(msg, "ldimm64 insn specifies invalid btf_id"):
		// check_pseudo_btf_id: a symbol or BTF id it cannot find.
		return syscall.ENOENT
	case strings.HasPrefix(msg, "Helper has invalid btf/btf_id"), strings.HasPrefix(msg, "unexpected __bpf_trap()"):
		return syscall.EFAULT
	case strings.HasPrefix(msg, "exception callback") && strings.HasSuffix(msg, "could not be found in BTF"):
		// bpf_find_exception_callback_insn_off passes the BTF lookup's error on.
		return syscall.ENOENT
	case strings.HasPrefix(msg, "multiple exception callback tags"):
		return syscall.EEXIST
	case strings.HasPrefix(msg, "Only one arena per program"), strings.HasPrefix(msg, "only one cgroup storage of each type is allowed"):
		return syscall.EBUSY
	case strings.HasSuffix(msg, " is not supported for this attach type"), strings.HasSuffix(msg, "type tag is not supported in static functions"):
		// check_attach_btf_id's >8-byte return, btf_prepare_func_args.
		return syscall.EOPNOTSUPP
	case strings.HasPrefix(msg, "kernel function ") && strings.HasSuffix(msg, " is not supported"),
		strings.HasPrefix(msg, "Arg#") && strings.HasSuffix(msg, " is not supported yet."):
		// check_kfunc_args' and check_kfunc_call's pointer types,
		// btf_prepare_func_args' argument types.
		return syscall.EINVAL
	case isInvalidRegNumber(msg):
		// check_reg_arg: a register number past r10.
		return syscall.EINVAL
	}
	for _, m := range einvalMessages {
		if piece, ok := strings.CutPrefix(m, "*"); ok && strings.Contains(msg, piece) || strings.HasPrefix(msg, m) {
			return syscall.EINVAL
		}
	}
	return syscall.EACCES
}

// isInvalidRegNumber reports check_reg_arg's "R%d is invalid".
func isInvalidRegNumber(msg string) bool {
	n, ok := strings.CutSuffix(msg, " is invalid")
	n, ok2 := strings.CutPrefix(n, "R")
	if !ok || !ok2 || n == "" {
		return false
	}
	return strings.Trim(n, "0123456789") == ""
}

// lastLine is the decisive line of a message that may take two.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
