#include "progs.h"

/* Connection tracking kfuncs, which a kernel built with CONFIG_NF_CONNTRACK=m
 * has in the nf_conntrack module's BTF, not in vmlinux's: the verifier
 * package checks these programs against such a kernel's BTF and module BTF
 * too (TestModuleKfuncs); the running kernel has them built in. */

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

/* Looks a connection up, reads its mark and releases it. */
// vercheck: accept
SEC("tc")
int p8_ct_lookup_release(struct __sk_buff *ctx)
{
	struct bpf_sock_tuple tup = {};
	struct bpf_ct_opts opts = { .netns_id = -1, .l4proto = 6 };
	struct nf_conn *ct = bpf_skb_ct_lookup(ctx, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	int mark = 0;

	if (ct) {
		mark = ct->mark;
		bpf_ct_release(ct);
	}
	return mark;
}

/* Forgets to release the connection. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int p8_ct_leak(struct __sk_buff *ctx)
{
	struct bpf_sock_tuple tup = {};
	struct bpf_ct_opts opts = { .netns_id = -1, .l4proto = 6 };
	struct nf_conn *ct = bpf_skb_ct_lookup(ctx, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));

	return ct != 0;
}

/* Reads the connection without checking it for NULL. */
// vercheck: reject "R0 invalid mem access 'ptr_or_null_'"
SEC("tc")
int p8_ct_unchecked(struct __sk_buff *ctx)
{
	struct bpf_sock_tuple tup = {};
	struct bpf_ct_opts opts = { .netns_id = -1, .l4proto = 6 };
	struct nf_conn *ct = bpf_skb_ct_lookup(ctx, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));

	return ct->mark;
}
char _license[] SEC("license") = "GPL";
