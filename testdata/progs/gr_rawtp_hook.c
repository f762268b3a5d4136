#include "gr_graph.h"

/* Raw tracepoints have no kfunc hook of their own in 6.18
 * (bpf_prog_type_to_kfunc_hook): the generic set, registered for tracing
 * programs (fentry, tp_btf, LSM), tracepoints and perf events among
 * others, is not theirs; the common set (bpf_rcu_read_lock...) is. */

struct gr_obj {
	long x;
};

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

// vercheck: reject "calling kernel function bpf_obj_new_impl is not allowed"
SEC("raw_tp/task_newtask")
int gr_rawtp_generic_kfunc(void *ctx)
{
	struct gr_obj *o = bpf_obj_new(struct gr_obj);

	if (o)
		bpf_obj_drop(o);
	return 0;
}

// vercheck: accept
SEC("raw_tp/task_newtask")
int gr_rawtp_common_kfunc(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: accept
SEC("tracepoint/syscalls/sys_enter_getpid")
int gr_tp_generic_kfunc(void *ctx)
{
	struct gr_obj *o = bpf_obj_new(struct gr_obj);

	if (o)
		bpf_obj_drop(o);
	return 0;
}

char _license[] SEC("license") = "GPL";
