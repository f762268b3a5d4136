// Sock_ops programs share the cgroup programs' kfunc hook
// (bpf_prog_type_to_kfunc_hook gives BTF_KFUNC_HOOK_CGROUP since 6.15): the
// generic kfuncs registered for cgroup_skb, and the sock_addr kfuncs, are
// theirs too.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct bpf_sock_addr_kern {
	__u32 uaddrlen;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern int bpf_sock_addr_set_sun_path(struct bpf_sock_addr_kern *sa_kern, const __u8 *sun_path,
				      __u32 sun_path__sz) __ksym;

// vercheck: accept
SEC("sockops")
int sd2_sockops_task(struct bpf_sock_ops *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (t)
		bpf_task_release(t);
	return 1;
}

// Allowed, but the sock_ops context is no struct bpf_sock_addr_kern.
// vercheck: reject "arg#0 pointer type STRUCT bpf_sock_addr_kern must point to scalar, or struct with scalar"
SEC("sockops")
int sd2_sockops_sun_path(struct bpf_sock_ops *ctx)
{
	__u8 path[4] = {};

	bpf_sock_addr_set_sun_path((struct bpf_sock_addr_kern *)ctx, path, sizeof(path));
	return 1;
}
