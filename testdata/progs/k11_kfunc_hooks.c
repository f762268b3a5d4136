#include "progs.h"

/* Which program types may call which kfunc (the sets' registrations and
 * filters), and what their arguments take: keys (acquired, released), a
 * task to signal, a cgroup's xattr named by a constant string, sleepable
 * iterators. */

struct bpf_key {
	int has_ref;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	unsigned int flags;
} __attribute__((preserve_access_index));

struct cgroup {
	struct cgroup_subsys_state self;
} __attribute__((preserve_access_index));

struct bpf_sock_ops_kern {
	struct sock *sk;
} __attribute__((preserve_access_index));

struct file {
	unsigned int f_flags;
} __attribute__((preserve_access_index));

struct bpf_iter_kmem_cache {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern struct bpf_key *bpf_lookup_system_key(__u64 id) __ksym;
extern void bpf_key_put(struct bpf_key *key) __ksym;
enum pid_type { PIDTYPE_PID };

extern int bpf_send_signal_task(struct task_struct *task, int sig, enum pid_type type, __u64 value) __ksym;
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern struct cgroup *bpf_cgroup_from_id(__u64 cgid) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;
extern int bpf_cgroup_read_xattr(struct cgroup *cgroup, const char *name__str, struct bpf_dynptr *value_p) __ksym;
extern void css_rstat_updated(struct cgroup_subsys_state *css, int cpu) __ksym;
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern int bpf_sock_ops_enable_tx_tstamp(struct bpf_sock_ops_kern *skops, __u64 flags) __ksym;
extern struct file *bpf_get_task_exe_file(struct task_struct *task) __ksym;
extern int bpf_iter_kmem_cache_new(struct bpf_iter_kmem_cache *it) __ksym;
extern void bpf_iter_kmem_cache_destroy(struct bpf_iter_kmem_cache *it) __ksym;

const char k11_xattr_name[] = "user.k11";
char k11_xattr_buf[16];
char k11_mutable_name[16] = "user.k11";

// vercheck: accept
SEC("tc")
int k11_system_key(struct __sk_buff *skb)
{
	struct bpf_key *k = bpf_lookup_system_key(1);

	if (!k)
		return 0;
	bpf_key_put(k);
	return 1;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int k11_system_key_leak(struct __sk_buff *skb)
{
	struct bpf_key *k = bpf_lookup_system_key(1);

	return k ? 1 : 0;
}

// vercheck: accept
SEC("tc")
int k11_signal_task(struct __sk_buff *skb)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (!t)
		return 0;
	bpf_send_signal_task(t, 0, PIDTYPE_PID, 0);
	bpf_task_release(t);
	return 0;
}

// vercheck: accept
SEC("cgroup_skb/egress")
int k11_cgroup_xattr(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	struct cgroup *cg = bpf_cgroup_from_id(1);

	if (!cg)
		return 1;
	bpf_dynptr_from_mem(k11_xattr_buf, sizeof(k11_xattr_buf), 0, &d);
	bpf_cgroup_read_xattr(cg, k11_xattr_name, &d);
	bpf_cgroup_release(cg);
	return 1;
}

// vercheck: reject "R2 does not point to a readonly map'"
SEC("cgroup_skb/egress")
int k11_cgroup_xattr_mutable_name(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	struct cgroup *cg = bpf_cgroup_from_id(1);

	if (!cg)
		return 1;
	bpf_dynptr_from_mem(k11_xattr_buf, sizeof(k11_xattr_buf), 0, &d);
	bpf_cgroup_read_xattr(cg, k11_mutable_name, &d);
	bpf_cgroup_release(cg);
	return 1;
}

// vercheck: reject "calling kernel function css_rstat_updated is not allowed"
SEC("tc")
int k11_rstat_tc(struct __sk_buff *skb)
{
	css_rstat_updated(0, 0);
	return 0;
}

// vercheck: reject "program must be sleepable to call sleepable kfunc bpf_iter_kmem_cache_new"
SEC("tc")
int k11_kmem_cache_iter_tc(struct __sk_buff *skb)
{
	struct bpf_iter_kmem_cache it;

	bpf_iter_kmem_cache_new(&it);
	bpf_iter_kmem_cache_destroy(&it);
	return 0;
}

// vercheck: accept
SEC("sockops")
int k11_sockops_tstamp(struct bpf_sock_ops *skops)
{
	struct bpf_sock_ops_kern *k = bpf_cast_to_kern_ctx(skops);

	bpf_sock_ops_enable_tx_tstamp(k, 0);
	return 1;
}

/* The file kfuncs are registered for LSM programs, in the tracing hook,
 * and their set's filter refuses the other tracing types. */
// vercheck: reject "calling kernel function bpf_get_task_exe_file is not allowed"
SEC("tracepoint/syscalls/sys_enter_getpid")
int k11_exe_file_tracepoint(void *ctx)
{
	return bpf_get_task_exe_file(0) != 0;
}

char _license[] SEC("license") = "GPL";
