// check_func_arg_reg_off switches on a register's exact type: a slice
// bpf_dynptr_slice(_rdwr) returned carries its dynptr's DYNPTR_TYPE_* flag,
// which is not among the memory types that may be passed at an offset, so
// a helper or kfunc gets such a slice only at its start.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct nf_conn {};

struct bpf_ct_opts {
	__s32 netns_id;
	__s32 error;
	__u8 l4proto;
	__u8 dir;
	__u16 ct_zone_id;
	__u8 ct_zone_dir;
	__u8 reserved[3];
};

extern struct nf_conn *bpf_skb_ct_lookup(struct __sk_buff *, struct bpf_sock_tuple *, __u32, struct bpf_ct_opts *, __u32) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;

// vercheck: reject "dereference of modified rdonly_mem ptr R1 off=4 disallowed"
SEC("tc")
int sd_off_rdonly_slice(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[16]; char *k;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
	if (!k) return 0;
	return bpf_csum_diff((void *)(k + 4), 4, 0, 0, 0);
}

// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "dereference of modified mem ptr R1 off=4 disallowed" without no-dynptr-slice-rdwr
SEC("tc")
int sd_off_rdwr_slice(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[16]; char *k;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!k) return 0;
	return bpf_csum_diff((void *)(k + 4), 4, 0, 0, 0);
}

// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "variable mem access var_off=(0x0; 0x7) disallowed" without no-dynptr-slice-rdwr
SEC("tc")
int sd_off_rdwr_slice_var(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[16]; char *k; __u32 i = skb->len & 7;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!k) return 0;
	return bpf_csum_diff((void *)(k + i), 4, 0, 0, 0);
}

// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int sd_off_rdwr_slice0(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[16]; char *k;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!k) return 0;
	return bpf_csum_diff((void *)k, 4, 0, 0, 0);
}

// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int sd_kf_tuple_rdwr(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[12]; void *t; struct bpf_ct_opts o = {};
	struct nf_conn *ct;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	t = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!t) return 0;
	ct = bpf_skb_ct_lookup(skb, t, 12, &o, sizeof(o));
	if (ct) bpf_ct_release(ct);
	return 0;
}

// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "dereference of modified mem ptr R2 off=4 disallowed" without no-dynptr-slice-rdwr
SEC("tc")
int sd_kf_tuple_rdwr_off(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[16]; char *t; struct bpf_ct_opts o = {};
	struct nf_conn *ct;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	t = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!t) return 0;
	ct = bpf_skb_ct_lookup(skb, (void *)(t + 4), 12, &o, sizeof(o));
	if (ct) bpf_ct_release(ct);
	return 0;
}

/* A global function's memory argument follows the same rule. */
__attribute__((noinline)) int sd_gl_read(int *p)
{
	if (!p)
		return 0;
	return *p;
}

// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "Caller passes invalid args into func#1 ('sd_gl_read')" without no-dynptr-slice-rdwr
SEC("tc")
int sd_global_arg_slice_off(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	char buf[16];
	char *k;

	if (bpf_dynptr_from_skb(skb, 0, &ptr))
		return 0;
	k = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!k)
		return 0;
	return sd_gl_read((int *)(k + 4));
}

// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int sd_global_arg_slice0(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	char buf[16];
	char *k;

	if (bpf_dynptr_from_skb(skb, 0, &ptr))
		return 0;
	k = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!k)
		return 0;
	return sd_gl_read((int *)k);
}
