#include "gr_graph.h"

/* Dynptr kfuncs and kfunc arguments where vercheck and the
 * 6.18.44-fc-v1252 build differed (TestDynptrLiveKernel,
 * TestKfuncArgsLiveKernel):
 * - bpf_dynptr_slice_rdwr is refused by that build once its arguments
 *   are checked, whatever the program type and the dynptr
 *   (stablefix.NoDynptrSliceRdwr; 6.18.0 and the -fc-v1147 build give tc
 *   and XDP programs a writable slice: the "without" lines). vercheck
 *   accepted them: false accepts.
 * - bpf_dynptr_memset and bpf_dynptr_copy were not in vercheck's kfunc
 *   table: false rejects ("unsupported").
 * - a clone made in a subprogram of its caller's ringbuf dynptr dies when
 *   the subprogram releases the original (stablefix.DynptrCloneAllFrames;
 *   false accept).
 * - bpf_refcount_acquire of a BTF pointer moved off its object start is
 *   refused at the offset (stablefix.RefcountArgZeroOff; an owning
 *   reference moved in was a false accept). */

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern int bpf_dynptr_from_skb_meta(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern int bpf_dynptr_from_xdp(struct xdp_md *x, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
				   __u32 buffer__szk) __ksym;
extern int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr *clone__uninit) __ksym;
extern int bpf_dynptr_memset(struct bpf_dynptr *p, __u32 offset, __u32 size, __u8 val) __ksym;
extern int bpf_dynptr_copy(struct bpf_dynptr *dst_ptr, __u32 dst_off, struct bpf_dynptr *src_ptr,
			   __u32 src_off, __u32 size) __ksym;

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[4]);
} v18_dp_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} v18_dp_rb SEC(".maps");

/* memset and copy on an skb dynptr: accepted (they also give the kfuncs
 * of the naked programs below their BTF). */
// vercheck: accept
SEC("tc")
int v18_dp_memset_copy_skb(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	if (bpf_dynptr_from_skb(skb, 0, &d))
		return 0;
	bpf_dynptr_memset(&d, 0, 8, 0);
	return bpf_dynptr_copy(&d, 0, &d, 8, 8);
}

/* bpf_dynptr_slice_rdwr of an skb dynptr, no buffer. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int v18_dp_rdwr_skb(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, NULL, 4);
	if (!p)
		return 0;
	p[0] = 1;
	return 0;
}

/* Of the skb's metadata area. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int v18_dp_rdwr_skb_meta(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 *p;

	bpf_dynptr_from_skb_meta(skb, 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, NULL, 4);
	if (!p)
		return 0;
	p[0] = 1;
	return 0;
}

/* Of an XDP packet, with a stack buffer. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("xdp")
int v18_dp_rdwr_xdp_buf(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	__u64 buf;
	__u8 *p;

	bpf_dynptr_from_xdp(ctx, 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, &buf, sizeof(buf));
	if (!p)
		return XDP_PASS;
	p[0] = 1;
	return XDP_PASS;
}

/* Of a local dynptr over a map value, in a tc program. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int v18_dp_rdwr_local(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u32 key = 0;
	__u64 *v;
	__u8 *p;

	v = bpf_map_lookup_elem(&v18_dp_array, &key);
	if (!v)
		return 0;
	bpf_dynptr_from_mem(v, 32, 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, NULL, 8);
	if (!p)
		return 0;
	p[0] = 1;
	return 0;
}

/* A socket filter may not write packets; the build's refusal comes
 * first. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "the prog does not allow writes to packet data" without no-dynptr-slice-rdwr
SEC("socket")
int v18_dp_rdwr_socket(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &d);
	p = bpf_dynptr_slice_rdwr(&d, 0, NULL, 1);
	return p ? p[0] : 0;
}

/* The arguments are checked first. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("tc")
__naked int v18_dp_rdwr_uninit(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice_rdwr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_slice_rdwr)
		: __clobber_all);
}

/* memset and copy on a local dynptr over a map value in XDP. */
// vercheck: accept
SEC("xdp")
int v18_dp_memset_copy_local(struct xdp_md *ctx)
{
	struct bpf_dynptr d, e;
	__u32 key = 0;
	__u64 *v;

	v = bpf_map_lookup_elem(&v18_dp_array, &key);
	if (!v)
		return XDP_PASS;
	bpf_dynptr_from_mem(v, 32, 0, &d);
	bpf_dynptr_from_xdp(ctx, 0, &e);
	bpf_dynptr_memset(&d, 4, 8, 0xff);
	bpf_dynptr_copy(&d, 0, &e, 0, 8);
	return XDP_PASS;
}

/* memset in a socket filter (the kfuncs are in the common set). */
// vercheck: accept
SEC("socket")
int v18_dp_memset_socket(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_skb(skb, 0, &d);
	bpf_dynptr_memset(&d, 0, 1, 0);
	return 0;
}

/* memset of a stack slot that holds no dynptr. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("tc")
__naked int v18_dp_memset_uninit(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 -16) = r1;"
		"*(u64 *)(r10 -8) = r1;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 8;"
		"r4 = 0;"
		"call %[bpf_dynptr_memset];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_memset)
		: __clobber_all);
}

/* copy's source (arg #2) must be a dynptr too. */
// vercheck: reject "Expected an initialized dynptr as arg #2"
SEC("tc")
__naked int v18_dp_copy_uninit_src(void)
{
	asm volatile(
		"r6 = r1;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -48;"
		"r4 = 0;"
		"r5 = 8;"
		"call %[bpf_dynptr_copy];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_copy)
		: __clobber_all);
}

/* The context is no dynptr. */
// vercheck: reject "arg#0 expected pointer to stack or const struct bpf_dynptr"
SEC("tc")
__naked int v18_dp_memset_ctx(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = 8;"
		"r4 = 0;"
		"call %[bpf_dynptr_memset];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_memset)
		: __clobber_all);
}

/* A subprogram clones its caller's ringbuf dynptr into its own frame,
 * discards the original and reads the clone. */
static __noinline int v18_dp_clone_sub(struct bpf_dynptr *d)
{
	struct bpf_dynptr c;
	__u64 buf;

	bpf_dynptr_clone(d, &c);
	bpf_ringbuf_discard_dynptr(d, 0);
	return bpf_dynptr_read(&buf, sizeof(buf), &c, 0, 0);
}

// vercheck: reject "Expected an initialized dynptr as arg #2"
// vercheck: accept without dynptr-clone-all-frames
SEC("tc")
int v18_dp_clone_sub_discard(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	bpf_ringbuf_reserve_dynptr(&v18_dp_rb, 8, 0, &d);
	return v18_dp_clone_sub(&d);
}

/* The same in one frame. */
// vercheck: reject "Expected an initialized dynptr as arg #2"
SEC("tc")
int v18_dp_clone_discard(struct __sk_buff *skb)
{
	struct bpf_dynptr d, c;
	__u64 buf;

	bpf_ringbuf_reserve_dynptr(&v18_dp_rb, 8, 0, &d);
	bpf_dynptr_clone(&d, &c);
	bpf_ringbuf_discard_dynptr(&d, 0);
	return bpf_dynptr_read(&buf, sizeof(buf), &c, 0, 0);
}

/* bpf_refcount_acquire of the current task moved 8 bytes in. */
// vercheck: reject "dereference of modified trusted_ptr_ ptr R1 off=8 disallowed"
// vercheck: reject "arg#0 is neither owning or non-owning ref" without refcount-arg-zero-off
SEC("tp_btf/task_newtask")
__naked int v18_dp_refcount_task_off(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r0 += 8;"
		"r1 = r0;"
		"r2 = 0;"
		"call %[bpf_refcount_acquire_impl];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_refcount_acquire_impl)
		: __clobber_all);
}

struct v18_rc {
	long key;
	struct bpf_refcount ref;
};

/* Of an owning reference moved 8 bytes in. */
// vercheck: reject "dereference of modified ptr_ ptr R1 off=8 disallowed"
// vercheck: accept without refcount-arg-zero-off
SEC("tc")
int v18_dp_refcount_owning_off(struct __sk_buff *skb)
{
	struct v18_rc *n, *m;

	n = bpf_obj_new(struct v18_rc);
	if (!n)
		return 0;
	m = bpf_refcount_acquire((void *)n + 8);
	if (m)
		bpf_obj_drop(m);
	bpf_obj_drop(n);
	return 0;
}

/* And at its start: accepted. */
// vercheck: accept
SEC("tc")
int v18_dp_refcount_owning(struct __sk_buff *skb)
{
	struct v18_rc *n, *m;

	n = bpf_obj_new(struct v18_rc);
	if (!n)
		return 0;
	m = bpf_refcount_acquire(n);
	if (m)
		bpf_obj_drop(m);
	bpf_obj_drop(n);
	return 0;
}
