#include "progs.h"

/* bpf_dynptr_write into an skb (or skb_meta) dynptr may move the packet,
 * so check_helper_call invalidates every packet pointer after it. The
 * 6.18.44-fc-v1252 build does the same after bpf_dynptr_copy into such a
 * dynptr and after bpf_dynptr_memset of one (a write into an XDP or a
 * local dynptr leaves the pointers alone), and its check_cfg counts both
 * kfuncs as changing packet data whatever the dynptr, so that a global
 * function holding one invalidates its caller's pointers, in XDP too.
 * vercheck let the old pointer be read after the write: a use of freed
 * packet data accepted (stable entry dynptr-kfunc-pkt-write; found by the
 * fuzz seed 20261901 run, whose mutant turned a global function's
 * bpf_dynptr_write into bpf_dynptr_copy). */

char _license[] SEC("license") = "GPL";

extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern int bpf_dynptr_from_xdp(struct xdp_md *x, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern int bpf_dynptr_copy(struct bpf_dynptr *dst_ptr, __u32 dst_off, struct bpf_dynptr *src_ptr,
			   __u32 src_off, __u32 size) __ksym;
extern int bpf_dynptr_memset(struct bpf_dynptr *p, __u32 offset, __u32 size, __u8 val) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64[4]);
} s19_buf SEC(".maps");

/* The packet's first byte checked, a local dynptr q over a map value
 * (p is left for the program's own dynptr). */
#define S19_PROLOGUE(x)							\
	void *data = (void *)(long)(x)->data;				\
	void *end = (void *)(long)(x)->data_end;			\
	struct bpf_dynptr p, q;						\
	int k = 0;							\
	void *v;							\
									\
	if (data + 1 > end)						\
		return 0;						\
	v = bpf_map_lookup_elem(&s19_buf, &k);				\
	if (!v)								\
		return 0;						\
	bpf_dynptr_from_mem(v, 32, 0, &q)

/* Copy into the skb dynptr: the packet may have moved. */
// vercheck: reject "R9 invalid mem access 'scalar'"
// vercheck: accept without dynptr-kfunc-pkt-write
SEC("tc")
int s19_copy_into_skb(struct __sk_buff *skb)
{
	S19_PROLOGUE(skb);
	bpf_dynptr_from_skb(skb, 0, &p);
	bpf_dynptr_copy(&p, 0, &q, 1, 1);
	return *(volatile __u8 *)data;
}

/* Copy out of the skb dynptr into a local one: the packet stays. */
// vercheck: accept
SEC("tc")
int s19_copy_from_skb(struct __sk_buff *skb)
{
	S19_PROLOGUE(skb);
	bpf_dynptr_from_skb(skb, 0, &p);
	bpf_dynptr_copy(&q, 0, &p, 1, 1);
	return *(volatile __u8 *)data;
}

/* Memset of the skb dynptr. */
// vercheck: reject "R8 invalid mem access 'scalar'"
// vercheck: accept without dynptr-kfunc-pkt-write
SEC("tc")
int s19_memset_skb(struct __sk_buff *skb)
{
	S19_PROLOGUE(skb);
	bpf_dynptr_from_skb(skb, 0, &p);
	bpf_dynptr_memset(&p, 0, 1, 0);
	return *(volatile __u8 *)data;
}

/* Memset of an XDP dynptr, and of a local one: the packet stays. */
// vercheck: accept
SEC("xdp")
int s19_memset_xdp(struct xdp_md *xdp)
{
	S19_PROLOGUE(xdp);
	bpf_dynptr_from_xdp(xdp, 0, &p);
	bpf_dynptr_memset(&p, 0, 1, 0);
	return *(volatile __u8 *)data;
}

// vercheck: accept
SEC("tc")
int s19_memset_local(struct __sk_buff *skb)
{
	S19_PROLOGUE(skb);
	(void)p;
	bpf_dynptr_memset(&q, 0, 1, 0);
	return *(volatile __u8 *)data;
}

/* A global function that clears a map value through a local dynptr:
 * check_cfg counts the memset all the same. */
__noinline int s19_gsub_memset(void)
{
	struct bpf_dynptr q;
	int k = 0;
	void *v = bpf_map_lookup_elem(&s19_buf, &k);

	if (!v)
		return 0;
	bpf_dynptr_from_mem(v, 32, 0, &q);
	bpf_dynptr_memset(&q, 0, 1, 0);
	return 0;
}

// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without dynptr-kfunc-pkt-write
SEC("tc")
int s19_global_memset_tc(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;

	if (data + 1 > end)
		return 0;
	s19_gsub_memset();
	return *(volatile __u8 *)data;
}

// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without dynptr-kfunc-pkt-write
SEC("xdp")
int s19_global_memset_xdp(struct xdp_md *xdp)
{
	void *data = (void *)(long)xdp->data;
	void *end = (void *)(long)xdp->data_end;

	if (data + 1 > end)
		return 0;
	s19_gsub_memset();
	return *(volatile __u8 *)data;
}
