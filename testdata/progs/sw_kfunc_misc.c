#include "progs.h"

/* kfuncs with their registrations' conditions: the kprobe session kfuncs
 * (kprobe session programs only; the cookie is writable memory), the XDP
 * metadata kfuncs (device-bound programs only), bpf_task_get_cgroup1; the
 * generic kfuncs are not registered for raw tracepoints.
 */

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct cgroup {
	int level;
} __attribute__((preserve_access_index));

struct xdp_md;

struct bpf_map {
	__u32 max_entries;
} __attribute__((preserve_access_index));

extern __u64 *bpf_session_cookie(void) __ksym;
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym;
extern struct cgroup *bpf_task_get_cgroup1(struct task_struct *task, int hierarchy_id) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym;
extern __s64 bpf_map_sum_elem_count(const struct bpf_map *map) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

// vercheck: accept
SEC("kprobe.session/do_nanosleep")
int sw_session_cookie(void *ctx)
{
	__u64 *cookie = bpf_session_cookie();

	*cookie = 7;
	return 0;
}

// vercheck: reject "calling kernel function bpf_session_cookie is not allowed"
SEC("kprobe/do_nanosleep")
int sw_session_cookie_plain_kprobe(void *ctx)
{
	__u64 *cookie = bpf_session_cookie();

	*cookie = 7;
	return 0;
}

// vercheck: reject "metadata kfuncs require device-bound program"
SEC("xdp")
int sw_xdp_metadata_unbound(struct xdp_md *ctx)
{
	__u64 ts = 0;

	bpf_xdp_metadata_rx_timestamp(ctx, &ts);
	return ts != 0;
}

// vercheck: accept
SEC("tp_btf/task_newtask")
int sw_task_cgroup1(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];
	struct cgroup *cgrp = bpf_task_get_cgroup1(task, 1);

	if (!cgrp)
		return 0;
	bpf_cgroup_release(cgrp);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, int);
} sw_counted SEC(".maps");

/* A map pointer stands for a trusted struct bpf_map (reg2btf_ids). */
// vercheck: accept
SEC("tc")
int sw_map_sum_elem_count(struct __sk_buff *skb)
{
	return bpf_map_sum_elem_count((const struct bpf_map *)&sw_counted) > 2;
}

/* Raw tracepoints have no kfunc hook: only the common kfuncs. */
// vercheck: reject "calling kernel function bpf_task_from_pid is not allowed"
SEC("raw_tp/sys_enter")
int sw_raw_tp_generic_kfunc(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (t)
		bpf_task_release(t);
	return 0;
}

char _license[] SEC("license") = "GPL";
