package verifier

// sched_ext schedulers: struct_ops programs implementing members of
// struct sched_ext_ops (kernel/sched/ext.c and ext_idle.c, 6.18).
//
// The running kernel may be built without sched_ext (this project's is):
// the type then is not in its BTF and the programs stay unsupported. With a
// kernel BTF that has it (--btf, loader.UseKernelBTF), vercheck checks them
// as 6.18's registration says:
//   - check_member (bpf_scx_check_member): only the members that run from
//     process context may be implemented by sleepable programs;
//   - is_valid_access (bpf_scx_is_valid_access): reads of the member's
//     arguments, aligned, inside the twelve slots (btf_ctx_access), the
//     arguments trusted; dispatch's prev and yield's to may be NULL (their
//     CFI stubs name them __nullable);
//   - btf_struct_access (bpf_scx_btf_struct_access): a program may store
//     into a task's scx.slice, scx.dsq_vtime and scx.disallow and nothing
//     else (-EACCES without a message);
//   - get_func_proto: the base set (which has the task storage helpers);
//   - the scx_bpf_* kfuncs of the sets ext.c and ext_idle.c register
//     (package kfuncs). 6.18 registers the per-operation sets (select_cpu,
//     enqueue/dispatch, dispatch, cpu_release) alike for every struct_ops
//     program and checks the calling operation at run time
//     (scx_kf_allowed), so the verifier does not refuse a kfunc called
//     from another operation. Kfuncs a later kernel added, whose BTF --btf
//     may name (scx_bpf_dsq_insert___v2, scx_bpf_task_set_slice...), carry
//     the flags that kernel registers them with; their implicit
//     bpf_prog_aux argument is not in the prototype BTF gives the program.

import (
	"syscall"

	"github.com/cilium/ebpf/btf"
)

// structOpsSchedExt is the sched_ext ops type.
const structOpsSchedExt = "sched_ext_ops"

// scxSleepableMembers are the sched_ext_ops members bpf_scx_check_member
// lets a sleepable program implement.
var scxSleepableMembers = map[string]bool{
	"init_task": true, "cgroup_init": true, "cgroup_exit": true, "cgroup_prep_move": true,
	"cpu_online": true, "cpu_offline": true, "init": true, "exit": true,
}

// scxWritableTaskFields are the task_struct fields bpf_scx_btf_struct_access
// lets a sched_ext program write, as member paths from struct task_struct.
var scxWritableTaskFields = [][]string{
	{"scx", "slice"},
	{"scx", "dsq_vtime"},
	{"scx", "disallow"},
}

// checkSCXWrite is bpf_scx_btf_struct_access: a store of size bytes at off
// through a BTF pointer to st is allowed when it lies inside one of the
// writable task fields. Any other store fails with -EACCES and no message.
func (e *env) checkSCXWrite(st btf.Type, off, size int) error {
	if st.TypeName() == "task_struct" {
		for _, path := range scxWritableTaskFields {
			start, fsize, ok := memberSpan(st, path)
			if ok && off >= start && off+size <= start+fsize {
				return nil
			}
		}
	}
	err := e.reject(e.insnIdx, "")
	err.(*RejectError).errno = syscall.EACCES
	return err
}
