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
//     (scxKfuncs). 6.18 registers the per-operation sets (select_cpu,
//     enqueue/dispatch, dispatch, cpu_release) alike for every struct_ops
//     program and checks the calling operation at run time
//     (scx_kf_allowed), so the verifier does not refuse a kfunc called
//     from another operation. Kfuncs a later kernel added, whose BTF --btf
//     may name (scx_bpf_dsq_insert___v2, scx_bpf_task_set_slice...), carry
//     the flags that kernel registers them with; their implicit
//     bpf_prog_aux argument is not in the prototype BTF gives the program.

import (
	"maps"
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

// Hook sets of the sched_ext kfunc sets (scx_init, scx_idle_init).
const (
	// hooksSCXOps: the per-operation sets, struct_ops programs only.
	hooksSCXOps = hookStructOps
	// hooksSCXUnlocked: scx_kfunc_set_unlocked, also for syscall
	// programs.
	hooksSCXUnlocked = hookStructOps | hookSyscall
	// hooksSCXAny: scx_kfunc_set_any and scx_kfunc_set_idle, also for
	// tracing and syscall programs.
	hooksSCXAny = hookStructOps | hookTracing | hookSyscall
)

// scxKfuncs are the sched_ext kfuncs with the flags and hooks of their
// registration. KF_TRUSTED_ARGS is every kfunc's default (see kfuncTable).
var scxKfuncs = map[string]kfuncDef{
	// scx_kfunc_ids_select_cpu.
	"scx_bpf_select_cpu_dfl": {kfRCU, hooksSCXOps},
	"scx_bpf_select_cpu_and": {kfRCU, hooksSCXOps},
	// The forms 6.18 gives the kfuncs of more than five arguments: the
	// rest in a struct the program passes.
	"__scx_bpf_select_cpu_and":   {kfRCU, hooksSCXOps},
	"__scx_bpf_dsq_insert_vtime": {kfRCU, hooksSCXOps},
	// scx_kfunc_ids_enqueue_dispatch (and the names before 6.13).
	"scx_bpf_dsq_insert":       {kfRCU, hooksSCXOps},
	"scx_bpf_dsq_insert___v2":  {kfRCU, hooksSCXOps},
	"scx_bpf_dsq_insert_vtime": {kfRCU, hooksSCXOps},
	"scx_bpf_dispatch":         {kfRCU, hooksSCXOps},
	"scx_bpf_dispatch_vtime":   {kfRCU, hooksSCXOps},
	// scx_kfunc_ids_dispatch.
	"scx_bpf_dispatch_nr_slots":           {0, hooksSCXOps},
	"scx_bpf_dispatch_cancel":             {0, hooksSCXOps},
	"scx_bpf_dsq_move_to_local":           {0, hooksSCXOps},
	"scx_bpf_dsq_move_to_local___v2":      {0, hooksSCXOps},
	"scx_bpf_consume":                     {0, hooksSCXOps},
	"scx_bpf_dsq_move_set_slice":          {kfRCU, hooksSCXUnlocked},
	"scx_bpf_dsq_move_set_vtime":          {kfRCU, hooksSCXUnlocked},
	"scx_bpf_dsq_move":                    {kfRCU, hooksSCXUnlocked},
	"scx_bpf_dsq_move_vtime":              {kfRCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_from_dsq_set_slice": {kfRCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_from_dsq_set_vtime": {kfRCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_from_dsq":           {kfRCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_vtime_from_dsq":     {kfRCU, hooksSCXUnlocked},
	// scx_kfunc_ids_cpu_release.
	"scx_bpf_reenqueue_local": {0, hooksSCXOps},
	// scx_kfunc_ids_unlocked.
	"scx_bpf_create_dsq": {kfSleepable, hooksSCXUnlocked},
	// scx_kfunc_ids_any.
	"scx_bpf_kick_cpu":             {0, hooksSCXAny},
	"scx_bpf_dsq_nr_queued":        {0, hooksSCXAny},
	"scx_bpf_destroy_dsq":          {0, hooksSCXAny},
	"scx_bpf_dsq_peek":             {kfRCUProtected | kfRetNull, hooksSCXAny},
	"scx_bpf_reenqueue_local___v2": {0, hooksSCXAny},
	"scx_bpf_task_set_slice":       {kfRCU, hooksSCXAny},
	"scx_bpf_task_set_dsq_vtime":   {kfRCU, hooksSCXAny},
	"bpf_iter_scx_dsq_new":         {kfIterNew | kfRCUProtected, hooksSCXAny},
	"bpf_iter_scx_dsq_next":        {kfIterNext | kfRetNull, hooksSCXAny},
	"bpf_iter_scx_dsq_destroy":     {kfIterDestroy, hooksSCXAny},
	"scx_bpf_exit_bstr":            {0, hooksSCXAny},
	"scx_bpf_error_bstr":           {0, hooksSCXAny},
	"scx_bpf_dump_bstr":            {0, hooksSCXAny},
	"scx_bpf_cpuperf_cap":          {0, hooksSCXAny},
	"scx_bpf_cpuperf_cur":          {0, hooksSCXAny},
	"scx_bpf_cpuperf_set":          {0, hooksSCXAny},
	"scx_bpf_nr_node_ids":          {0, hooksSCXAny},
	"scx_bpf_nr_cpu_ids":           {0, hooksSCXAny},
	"scx_bpf_get_possible_cpumask": {kfAcquire, hooksSCXAny},
	"scx_bpf_get_online_cpumask":   {kfAcquire, hooksSCXAny},
	"scx_bpf_put_cpumask":          {kfRelease, hooksSCXAny},
	"scx_bpf_task_running":         {kfRCU, hooksSCXAny},
	"scx_bpf_task_cpu":             {kfRCU, hooksSCXAny},
	"scx_bpf_cpu_rq":               {0, hooksSCXAny},
	"scx_bpf_locked_rq":            {kfRetNull, hooksSCXAny},
	"scx_bpf_cpu_curr":             {kfRetNull | kfRCUProtected, hooksSCXAny},
	"scx_bpf_task_cgroup":          {kfRCU | kfAcquire, hooksSCXAny},
	"scx_bpf_now":                  {0, hooksSCXAny},
	"scx_bpf_events":               {0, hooksSCXAny},
	// scx_kfunc_ids_idle (ext_idle.c).
	"scx_bpf_cpu_node":                {0, hooksSCXAny},
	"scx_bpf_get_idle_cpumask_node":   {kfAcquire, hooksSCXAny},
	"scx_bpf_get_idle_cpumask":        {kfAcquire, hooksSCXAny},
	"scx_bpf_get_idle_smtmask_node":   {kfAcquire, hooksSCXAny},
	"scx_bpf_get_idle_smtmask":        {kfAcquire, hooksSCXAny},
	"scx_bpf_put_idle_cpumask":        {kfRelease, hooksSCXAny},
	"scx_bpf_test_and_clear_cpu_idle": {0, hooksSCXAny},
	"scx_bpf_pick_idle_cpu_node":      {kfRCU, hooksSCXAny},
	"scx_bpf_pick_idle_cpu":           {kfRCU, hooksSCXAny},
	"scx_bpf_pick_any_cpu_node":       {kfRCU, hooksSCXAny},
	"scx_bpf_pick_any_cpu":            {kfRCU, hooksSCXAny},
}

// The sched_ext kfuncs join the table the kfunc checks read.
func init() {
	maps.Copy(kfuncTable, scxKfuncs)
}
