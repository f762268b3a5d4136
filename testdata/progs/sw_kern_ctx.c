#include "progs.h"

/* bpf_cast_to_kern_ctx gives the kernel struct behind each program type's
 * context (bpf_types.h): struct bpf_sock_addr_kern for cgroup sock_addr
 * programs, which bpf_sock_addr_set_sun_path then takes; the socket
 * iterators may destroy the socket they visit, other tracing programs not.
 */

struct sock_common {
	unsigned short skc_family;
} __attribute__((preserve_access_index));

struct bpf_sock_addr_kern {
	__u32 uaddrlen;
} __attribute__((preserve_access_index));

struct bpf_sock_ops_kern {
	__u8 op;
} __attribute__((preserve_access_index));

extern void *bpf_cast_to_kern_ctx(void *) __ksym;
extern int bpf_sock_addr_set_sun_path(struct bpf_sock_addr_kern *sa_kern, const __u8 *sun_path,
				      __u32 sun_path__sz) __ksym;
extern int bpf_sock_destroy(struct sock_common *sk) __ksym;

// vercheck: accept
SEC("cgroup/connect_unix")
int sw_kern_ctx_sun_path(struct bpf_sock_addr *ctx)
{
	struct bpf_sock_addr_kern *sa_kern = bpf_cast_to_kern_ctx(ctx);
	__u8 path[8] = {0, 's', 'w'};

	if (sa_kern->uaddrlen > 200)
		return 1;
	bpf_sock_addr_set_sun_path(sa_kern, path, sizeof(path));
	return 1;
}

// vercheck: accept
SEC("sockops")
int sw_kern_ctx_sock_ops(struct bpf_sock_ops *ctx)
{
	struct bpf_sock_ops_kern *kern = bpf_cast_to_kern_ctx(ctx);

	return kern->op == 4;
}

struct bpf_iter__tcp {
	void *meta;
	struct sock_common *sk_common;
} __attribute__((preserve_access_index));

// vercheck: accept
SEC("iter/tcp")
int sw_kern_ctx_sock_destroy(struct bpf_iter__tcp *ctx)
{
	struct sock_common *sk = ctx->sk_common;

	if (sk)
		bpf_sock_destroy(sk);
	return 0;
}

/* Only iterators may destroy sockets (the kfunc set's filter). */
// vercheck: reject "calling kernel function bpf_sock_destroy is not allowed"
SEC("tp_btf/inet_sock_set_state")
int sw_kern_ctx_sock_destroy_tp(__u64 *ctx)
{
	struct sock_common *sk = (struct sock_common *)ctx[0];

	if (sk)
		bpf_sock_destroy(sk);
	return 0;
}

char _license[] SEC("license") = "GPL";
