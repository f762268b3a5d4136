#include "progs.h"

/* Connection tracking kfuncs (nf_conntrack_bpf.c): a new entry is a
 * struct nf_conn___init, filled in and inserted; only the mark of an
 * entry may be written (the tc hook's btf_struct_access).
 */

struct nf_conn {
	__u32 mark;
	unsigned long status;
} __attribute__((preserve_access_index));

struct nf_conn___init {
	int pad;
};

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
extern struct nf_conn___init *bpf_skb_ct_alloc(struct __sk_buff *, struct bpf_sock_tuple *, __u32,
						struct bpf_ct_opts *, __u32) __ksym;
extern struct nf_conn *bpf_ct_insert_entry(struct nf_conn___init *) __ksym;
extern void bpf_ct_set_timeout(struct nf_conn___init *, __u32) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;

// vercheck: accept
SEC("tc")
int sw_ct_alloc_insert(struct __sk_buff *skb)
{
	struct bpf_ct_opts opts = {.netns_id = -1, .l4proto = 6};
	struct bpf_sock_tuple tup = {};
	struct nf_conn___init *nct;
	struct nf_conn *ct;

	nct = bpf_skb_ct_alloc(skb, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	if (!nct)
		return 0;
	bpf_ct_set_timeout(nct, 10000);
	ct = bpf_ct_insert_entry(nct);
	if (ct)
		bpf_ct_release(ct);
	return 0;
}

// vercheck: accept
SEC("tc")
int sw_ct_write_mark(struct __sk_buff *skb)
{
	struct bpf_ct_opts opts = {.netns_id = -1, .l4proto = 6};
	struct bpf_sock_tuple tup = {};
	struct nf_conn *ct;

	ct = bpf_skb_ct_lookup(skb, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	if (!ct)
		return 0;
	ct->mark = 42;
	bpf_ct_release(ct);
	return 0;
}

// vercheck: reject "no write support to nf_conn at off"
SEC("tc")
int sw_ct_write_status(struct __sk_buff *skb)
{
	struct bpf_ct_opts opts = {.netns_id = -1, .l4proto = 6};
	struct bpf_sock_tuple tup = {};
	struct nf_conn *ct;

	ct = bpf_skb_ct_lookup(skb, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	if (!ct)
		return 0;
	ct->status = 1;
	bpf_ct_release(ct);
	return 0;
}

/* A table entry is no new one: the set_* kfuncs take nf_conn___init. */
// vercheck: reject "kernel function bpf_ct_set_timeout args#0 expected pointer to STRUCT nf_conn___init but R1 has a pointer to STRUCT nf_conn"
SEC("tc")
int sw_ct_set_timeout_entry(struct __sk_buff *skb)
{
	struct bpf_ct_opts opts = {.netns_id = -1, .l4proto = 6};
	struct bpf_sock_tuple tup = {};
	struct nf_conn *ct;

	ct = bpf_skb_ct_lookup(skb, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	if (!ct)
		return 0;
	bpf_ct_set_timeout((struct nf_conn___init *)ct, 10000);
	bpf_ct_release(ct);
	return 0;
}

char _license[] SEC("license") = "GPL";
