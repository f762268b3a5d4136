#include "progs.h"
#include <bpf/bpf_core_read.h>

/* A store through an untrusted BTF pointer is refused before the program
 * type's btf_struct_access hook gets a say: a congestion-control program
 * may write a tcp_sock's window through its trusted argument, not through
 * the same socket cast with bpf_rdonly_cast; a tc program may write a
 * conntrack entry's mark through the referenced entry, not through a
 * cast of it. */

char _license[] SEC("license") = "GPL";

struct sock {
	unsigned long sk_pacing_rate;
} __attribute__((preserve_access_index));

struct tcp_sock {
	__u32 snd_cwnd;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	void (*init)(struct sock *sk);
	char name[16];
};

struct nf_conn {
	__u32 mark;
} __attribute__((preserve_access_index));

struct bpf_ct_opts {
	__s32 netns_id;
	__s32 error;
	__u8 l4proto;
	__u8 dir;
	__u16 ct_zone_id;
	__u8 ct_zone_dir;
	__u8 reserved[3];
};

extern struct nf_conn *bpf_skb_ct_lookup(struct __sk_buff *, struct bpf_sock_tuple *, __u32,
					  struct bpf_ct_opts *, __u32) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

// vercheck: accept
SEC("struct_ops/w12_cwnd_trusted")
void w12_cwnd_trusted(unsigned long long *ctx)
{
	((struct tcp_sock *)ctx[0])->snd_cwnd = 1;
}

// vercheck: reject "only read is supported"
SEC("struct_ops/w12_cwnd_cast")
void w12_cwnd_cast(unsigned long long *ctx)
{
	struct tcp_sock *tp = bpf_rdonly_cast((void *)ctx[0], bpf_core_type_id_kernel(struct tcp_sock));

	tp->snd_cwnd = 1;
}

SEC(".struct_ops")
struct tcp_congestion_ops w12_ops_trusted = { .init = (void *)w12_cwnd_trusted, .name = "w12_trusted" };
SEC(".struct_ops")
struct tcp_congestion_ops w12_ops_cast = { .init = (void *)w12_cwnd_cast, .name = "w12_cast" };

// vercheck: reject "only read is supported"
SEC("tc")
int w12_ct_mark_cast(struct __sk_buff *skb)
{
	struct bpf_ct_opts opts = {.netns_id = -1, .l4proto = 6};
	struct bpf_sock_tuple tup = {};
	struct nf_conn *ct, *c;

	ct = bpf_skb_ct_lookup(skb, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	if (!ct)
		return 0;
	c = bpf_rdonly_cast(ct, bpf_core_type_id_kernel(struct nf_conn));
	c->mark = 42;
	bpf_ct_release(ct);
	return 0;
}
