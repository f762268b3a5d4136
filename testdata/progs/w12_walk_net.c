#include "progs.h"

/* walk-untrusted in tc programs: a socket helper's plain tcp_sock, the
 * trusted kernel skb of bpf_cast_to_kern_ctx and a map pointer all give
 * untrusted pointers through their pointer fields, where a kernel without
 * the fix gives plain ones; bpf_skc_to_tcp_sock takes plain BTF pointers
 * only, and the conntrack hook lets a store through a plain nf_conn reach
 * its mark, not one through an untrusted nf_conn. */

struct sock_common {
	unsigned short skc_family;
} __attribute__((preserve_access_index));

struct socket;

struct sock {
	struct sock_common __sk_common;
	struct socket *sk_socket;
} __attribute__((preserve_access_index));

struct socket {
	struct sock *sk;
} __attribute__((preserve_access_index));

struct sk_buff {
	struct sock *sk;
} __attribute__((preserve_access_index));

struct nf_conn {
	struct nf_conn *master;
	__u32 mark;
} __attribute__((preserve_access_index));

struct bpf_map {
	struct bpf_map *inner_map_meta;
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
extern void *bpf_cast_to_kern_ctx(void *) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, int);
} w12_arr SEC(".maps");

/* bpf_skc_to_tcp_sock returns a plain pointer: its socket's sock is
 * untrusted. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
// vercheck: accept without walk-untrusted
SEC("tc")
int w12_tcp_sock_socket(struct __sk_buff *skb)
{
	struct bpf_sock *s = skb->sk;
	struct socket *so;
	struct sock *sk;

	if (!s)
		return 0;
	sk = (struct sock *)bpf_skc_to_tcp_sock(s);
	if (!sk)
		return 0;
	so = sk->sk_socket;
	if (so)
		bpf_skc_to_tcp_sock(so->sk);
	return 0;
}

/* skb->sk is listed (an RCU pointer, maybe NULL), sk_socket is not. The
 * socket helpers take no RCU pointer either, whatever the kernel. */
// vercheck: reject "R1 type=rcu_ptr_ expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("tc")
int w12_kern_skb_sk(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct sock *sk = skb->sk;

	if (sk)
		bpf_skc_to_tcp_sock(sk);
	return 0;
}

// vercheck: reject "R1 type=untrusted_ptr_ expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
// vercheck: accept without walk-untrusted
SEC("tc")
int w12_kern_skb_sk_socket(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct sock *sk = skb->sk;
	struct socket *so;

	if (!sk)
		return 0;
	so = sk->sk_socket;
	if (so)
		bpf_skc_to_tcp_sock(so->sk);
	return 0;
}

/* A conntrack entry's master read through a referenced entry: only read
 * is supported through it. */
// vercheck: reject "only read is supported"
// vercheck: accept without walk-untrusted
SEC("tc")
int w12_ct_master_mark(struct __sk_buff *skb)
{
	struct bpf_ct_opts opts = {.netns_id = -1, .l4proto = 6};
	struct bpf_sock_tuple tup = {};
	struct nf_conn *ct, *m;

	ct = bpf_skb_ct_lookup(skb, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	if (!ct)
		return 0;
	m = ct->master;
	if (m)
		m->mark = 42;
	bpf_ct_release(ct);
	return 0;
}

// vercheck: accept
SEC("tc")
int w12_ct_master_read(struct __sk_buff *skb)
{
	struct bpf_ct_opts opts = {.netns_id = -1, .l4proto = 6};
	struct bpf_sock_tuple tup = {};
	struct nf_conn *ct, *m;
	int mark = 0;

	ct = bpf_skb_ct_lookup(skb, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	if (!ct)
		return 0;
	m = ct->master;
	if (m)
		mark = m->mark;
	bpf_ct_release(ct);
	return mark;
}

/* A field of a map's struct read through the map pointer. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
// vercheck: reject "R1 is of type bpf_map but sock_common is expected" without walk-untrusted
SEC("tc")
int w12_map_inner_meta(struct __sk_buff *skb)
{
	struct bpf_map *m = (struct bpf_map *)&w12_arr;
	struct bpf_map *inner = m->inner_map_meta;

	if (inner)
		bpf_skc_to_tcp_sock(inner);
	return 0;
}

struct tcp_congestion_ops {
	void (*init)(struct sock *sk);
	char name[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} w12_sk_seen SEC(".maps");

/* A congestion-control program's socket argument is trusted: the sock of
 * its socket is untrusted. */
// vercheck: reject "R2 type=untrusted_ptr_ expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
// vercheck: accept without walk-untrusted
SEC("struct_ops/w12_ca_socket_sk")
void w12_ca_socket_sk(unsigned long long *ctx)
{
	struct sock *sk = (struct sock *)ctx[0];
	struct socket *so = sk->sk_socket;

	if (so && so->sk)
		bpf_sk_storage_get(&w12_sk_seen, so->sk, 0, 0);
}

// vercheck: accept
SEC("struct_ops/w12_ca_sk")
void w12_ca_sk(unsigned long long *ctx)
{
	bpf_sk_storage_get(&w12_sk_seen, (struct sock *)ctx[0], 0, 0);
}

SEC(".struct_ops")
struct tcp_congestion_ops w12_ops_socket_sk = { .init = (void *)w12_ca_socket_sk, .name = "w12_socket_sk" };
SEC(".struct_ops")
struct tcp_congestion_ops w12_ops_sk = { .init = (void *)w12_ca_sk, .name = "w12_sk" };

char _license[] SEC("license") = "GPL";
