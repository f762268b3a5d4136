package verifier

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// The kernel's checks of a trampoline program's target function
// (bpf_check_attach_target and check_attach_btf_id for fentry, fexit and
// fmod_ret): the trampoline must be able to save and pass the function's
// arguments and return value (btf_distill_func_proto), an fmod_ret
// program may only change what the function was made to let change, and
// fexit and fmod_ret programs may not attach to functions that never
// return.

// maxBPFFuncArgs is MAX_BPF_FUNC_ARGS: the most arguments a trampoline
// saves.
const maxBPFFuncArgs = 12

// maxTrampolineArgSize is the largest argument, in bytes, a trampoline
// passes (a struct by value of up to two registers).
const maxTrampolineArgSize = 16

// modifyReturnTargets are the kernel's fmodret id sets
// (register_btf_fmodret_id_set: net/bpf/test_run.c's test functions,
// MPTCP's socket protocol hook):
// fmod_ret programs may attach to them, and sleepable programs to those
// marked KF_SLEEPABLE (true).
var modifyReturnTargets = map[string]bool{
	"bpf_modify_return_test": false, "bpf_modify_return_test2": false,
	"bpf_modify_return_test_tp": false, "bpf_fentry_test1": true,
	// net/mptcp/bpf.c's bpf_mptcp_fmodret_ids.
	"update_socket_protocol": false,
}

// noreturnDeny is noreturn_deny on x86-64: functions that never return,
// whose fexit or fmod_ret trampoline would never run its second half.
var noreturnDeny = map[string]bool{
	"__ia32_sys_exit": true, "__ia32_sys_exit_group": true, "__kunit_abort": true,
	"kunit_try_catch_throw": true, "__module_put_and_kthread_exit": true,
	"__x64_sys_exit": true, "__x64_sys_exit_group": true, "do_exit": true, "do_group_exit": true,
	"kthread_complete_and_exit": true, "kthread_exit": true, "make_task_dead": true,
}

// btfIDDeny is btf_id_deny: functions no tracing program may attach to
// (the trampoline itself calls them), refused with EINVAL and no log.
// Each exists only in the builds whose configuration denies it
// (rcu_read_unlock_strict without preemptible RCU, preempt_count_add with
// DEBUG_PREEMPT, __rcu_read_lock with it), so the name decides.
var btfIDDeny = map[string]bool{
	"__migrate_enable": true, "___migrate_enable": true, "rcu_read_unlock_strict": true,
	"preempt_count_add": true, "preempt_count_sub": true, "__rcu_read_lock": true, "__rcu_read_unlock": true,
}

// btfIDDenyUnknown are functions 6.18's btf_id_deny lists in some builds
// and not in others (migrate_disable became inline, an out-of-line copy
// kept for modules): vercheck cannot tell which this kernel is.
var btfIDDenyUnknown = map[string]bool{"migrate_disable": true, "migrate_enable": true}

// isTrampolineAttach reports whether the program is an fentry, fexit or
// fmod_ret program.
func (e *env) isTrampolineAttach() bool {
	if e.progType != ebpf.Tracing {
		return false
	}
	switch e.attach {
	case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn:
		return true
	}
	return false
}

// checkTrampolineProto is btf_distill_func_proto on the target of an
// fentry, fexit or fmod_ret program (distillFuncProto).
func (e *env) checkTrampolineProto(tc *tracingCtx) error {
	if !e.isTrampolineAttach() {
		return nil
	}
	if msg := distillFuncProto(tc.name, tc.ret, tc.all); msg != "" {
		return e.reject(0, "%s", msg)
	}
	return nil
}

// distillFuncProto is btf_distill_func_proto, the model of a function the
// JIT calls or attaches to (an fentry, fexit or fmod_ret target, a kfunc):
// at most twelve arguments, each an int, enum, pointer or struct of at
// most 16 bytes and none of size 0, no variable arguments, and a return
// value that is no struct. It returns the kernel's refusal of the function
// name with result ret and parameters params, or "".
func distillFuncProto(name string, ret btf.Type, params []btf.FuncParam) string {
	n := len(params)
	if n > maxBPFFuncArgs {
		return fmt.Sprintf("The function %s has %d arguments. Too many.", name, n)
	}
	if size, t := trampolineTypeSize(ret); size < 0 || isStructOrUnion(t) {
		return fmt.Sprintf("The function %s return type %s is unsupported.", name, btfKindStr(t))
	}
	for i, p := range params {
		if _, void := p.Type.(*btf.Void); i == n-1 && (p.Type == nil || void) {
			return fmt.Sprintf("The function %s with variable args is unsupported.", name)
		}
		size, t := trampolineTypeSize(p.Type)
		if size < 0 || size > maxTrampolineArgSize {
			return fmt.Sprintf("The function %s arg%d type %s is unsupported.", name, i, btfKindStr(t))
		}
		if size == 0 {
			return fmt.Sprintf("The function %s has malformed void argument.", name)
		}
	}
	return ""
}

// checkTrampolineTarget is what the kernel checks of an fentry, fexit or
// fmod_ret target after its prototype and the sleepable rule: a
// non-sleepable fmod_ret program attaches only to a security_ function,
// an error-injectable one or one of an fmodret set ("%s() is not
// modifiable"), no tracing program to what btf_id_deny lists, and fexit
// and fmod_ret never to a function that does not return.
func (e *env) checkTrampolineTarget(tc *tracingCtx) error {
	if !e.isTrampolineAttach() {
		return nil
	}
	if e.attach == ebpf.AttachModifyReturn && !isSleepable(e) {
		ok, err := modifiable(tc.name)
		if err != nil {
			return e.unsupported(0, "fmod_ret program: %v", err)
		}
		if !ok {
			return e.reject(0, "%s() is not modifiable", tc.name)
		}
	}
	if btfIDDeny[tc.name] {
		return e.reject(0, "attach to %s: the kernel denies tracing this function (btf_id_deny; it logs nothing)", tc.name)
	}
	if btfIDDenyUnknown[tc.name] {
		return e.unsupported(0, "attach to %s: whether this build's btf_id_deny lists it", tc.name)
	}
	if (e.attach == ebpf.AttachTraceFExit || e.attach == ebpf.AttachModifyReturn) && noreturnDeny[tc.name] {
		return e.reject(0, "Attaching fexit/fmod_ret to __noreturn functions is rejected.")
	}
	return nil
}

// modifiable is btf_kfunc_is_modify_return or check_attach_modify_return:
// whether an fmod_ret program may change what function name returns.
func modifiable(name string) (bool, error) {
	if _, ok := modifyReturnTargets[name]; ok || strings.HasPrefix(name, "security_") {
		return true, nil
	}
	return errorInjectableFunc(name)
}

// trampolineTypeSize is __get_type_size: the size of t with modifiers
// skipped (a pointer's is 8, void's 0) when it is an int, enum, pointer,
// struct or union, -1 otherwise, and t so resolved.
func trampolineTypeSize(t btf.Type) (int, btf.Type) {
	if t == nil {
		return 0, &btf.Void{}
	}
	t = skipModifiers(t)
	switch v := t.(type) {
	case *btf.Void:
		return 0, t
	case *btf.Pointer:
		return ptrSize, t
	case *btf.Int:
		return int(v.Size), t
	case *btf.Enum:
		return int(v.Size), t
	case *btf.Struct:
		return int(v.Size), t
	case *btf.Union:
		return int(v.Size), t
	}
	return -1, t
}

// isStructOrUnion reports whether t is a struct or union.
func isStructOrUnion(t btf.Type) bool {
	switch t.(type) {
	case *btf.Struct, *btf.Union:
		return true
	}
	return false
}

// btfFuncByName finds a vmlinux function by name.
func btfFuncByName(name string) *btf.Func {
	fn, _ := vmlinuxType[*btf.Func](name)
	return fn
}
