#include "progs.h"

/* skb and xdp dynptrs built by kfuncs, their slices, and the generic
 * dynptr kfuncs. */

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern int bpf_dynptr_from_xdp(struct xdp_md *x, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
extern int bpf_dynptr_adjust(const struct bpf_dynptr *p, __u32 start, __u32 end) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern _Bool bpf_dynptr_is_null(const struct bpf_dynptr *p) __ksym;
extern _Bool bpf_dynptr_is_rdonly(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr *clone__uninit) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} kf_rb SEC(".maps");

struct eth {
	__u8 dst[6];
	__u8 src[6];
	__u16 proto;
};

/* Reads the Ethernet header through a slice, copied into a buffer when the
 * bytes are not linear. */
// vercheck: accept
SEC("tc")
int kf_dynptr_skb_slice(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	struct eth buf, *eth;

	if (bpf_dynptr_from_skb(skb, 0, &ptr))
		return 0;
	eth = bpf_dynptr_slice(&ptr, 0, &buf, sizeof(buf));
	if (!eth)
		return 0;
	return eth->proto == 8;
}

/* A slice without a buffer. */
// vercheck: accept
SEC("tc")
int kf_dynptr_skb_slice_nobuf(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u32 *w;

	bpf_dynptr_from_skb(skb, 0, &ptr);
	w = bpf_dynptr_slice(&ptr, 4, NULL, sizeof(*w));
	if (!w)
		return 0;
	return *w & 1;
}

/* The slice may be NULL. */
// vercheck: reject "R0 invalid mem access 'rdonly_mem_or_null'"
SEC("tc")
__naked int kf_dynptr_slice_unchecked(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"r0 = *(u32 *)(r0 + 0);"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* bpf_dynptr_slice gives read-only memory. */
// vercheck: reject "R0 cannot write into rdonly_mem"
SEC("tc")
__naked int kf_dynptr_slice_write(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u32 *)(r0 + 0) = r1;"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* bpf_dynptr_slice_rdwr gives writable memory where packets are
 * writable. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int kf_dynptr_skb_rdwr(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	struct eth *eth;

	bpf_dynptr_from_skb(skb, 0, &ptr);
	eth = bpf_dynptr_slice_rdwr(&ptr, 0, NULL, sizeof(*eth));
	if (!eth)
		return 0;
	eth->dst[0] = 1;
	return 0;
}

/* A socket filter may not write packets. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "the prog does not allow writes to packet data" without no-dynptr-slice-rdwr
SEC("socket")
int kf_dynptr_socket_rdwr(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &ptr);
	p = bpf_dynptr_slice_rdwr(&ptr, 0, NULL, 1);
	return p ? *p : 0;
}

/* A socket filter reads its packet through a dynptr. */
// vercheck: accept
SEC("socket")
int kf_dynptr_socket_read(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u8 buf[2], *p;

	bpf_dynptr_from_skb(skb, 0, &ptr);
	p = bpf_dynptr_slice(&ptr, 12, buf, sizeof(buf));
	return p ? p[1] : 0;
}

/* bpf_dynptr_write into an skb dynptr may move the packet: the slice
 * taken before is gone. */
// vercheck: reject "R6 invalid mem access 'scalar'"
SEC("tc")
__naked int kf_dynptr_slice_after_write(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = 0;"
		"*(u64 *)(r10 - 24) = r1;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -24;"
		"r4 = 8;"
		"r5 = 0;"
		"call %[bpf_dynptr_write];"
		"r0 = *(u32 *)(r6 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm(bpf_dynptr_write)
		: __clobber_all);
}

/* ... and so are direct packet pointers after a helper that changes the
 * packet, while the dynptr itself stays valid. */
// vercheck: accept
SEC("tc")
int kf_dynptr_skb_after_pull(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &ptr);
	bpf_skb_pull_data(skb, 0);
	p = bpf_dynptr_slice(&ptr, 0, NULL, 1);
	return p ? *p : 0;
}

/* A slice taken before bpf_skb_pull_data is invalid after it. */
// vercheck: reject "R6 invalid mem access 'scalar'"
SEC("tc")
__naked int kf_dynptr_slice_after_pull(void)
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
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"if r0 == 0 goto l0_%=;"
		"r1 = r6;"
		"r6 = r0;"
		"r2 = 0;"
		"call %[bpf_skb_pull_data];"
		"r0 = *(u32 *)(r6 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm(bpf_skb_pull_data)
		: __clobber_all);
}

/* XDP programs build xdp dynptrs. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("xdp")
int kf_dynptr_xdp_rdwr(struct xdp_md *ctx)
{
	struct bpf_dynptr ptr;
	struct eth buf, *eth;

	bpf_dynptr_from_xdp(ctx, 0, &ptr);
	eth = bpf_dynptr_slice_rdwr(&ptr, 0, &buf, sizeof(buf));
	if (!eth)
		return XDP_DROP;
	eth->src[0] = 2;
	return XDP_PASS;
}

/* ... and only they. */
// vercheck: reject "calling kernel function bpf_dynptr_from_xdp is not allowed"
SEC("tc")
__naked int kf_dynptr_xdp_in_tc(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_xdp];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_xdp)
		: __clobber_all);
}

/* The slice size must be a constant. */
// vercheck: reject "R4 must be a known constant"
SEC("tc")
__naked int kf_dynptr_slice_var_size(void)
{
	asm volatile(
		"r6 = *(u32 *)(r1 + 0);"
		"r6 &= 7;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = r6;"
		"call %[bpf_dynptr_slice];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* The buffer must hold the slice. */
// vercheck: reject "arg#2 arg#3 memory, len pair leads to invalid memory access"
SEC("tc")
__naked int kf_dynptr_slice_small_buf(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -20;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A slice of a dynptr never built. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("tc")
__naked int kf_dynptr_slice_uninit(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* The dynptr argument must be on the stack. */
// vercheck: reject "arg#0 expected pointer to stack or const struct bpf_dynptr"
SEC("tc")
__naked int kf_dynptr_ctx_arg(void)
{
	asm volatile(
		"call %[bpf_dynptr_size];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_size)
		: __clobber_all);
}

/* The generic dynptr kfuncs on an skb dynptr. */
// vercheck: accept
SEC("cgroup_skb/ingress")
int kf_dynptr_generic(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr, clone;
	__u32 n;

	bpf_dynptr_from_skb(skb, 0, &ptr);
	if (bpf_dynptr_is_null(&ptr) || bpf_dynptr_is_rdonly(&ptr))
		return 1;
	bpf_dynptr_clone(&ptr, &clone);
	bpf_dynptr_adjust(&clone, 1, 2);
	n = bpf_dynptr_size(&clone);
	return n == 1;
}

/* A clone of a ringbuf dynptr shares its reservation: submitting the clone
 * releases both. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("tc")
int kf_dynptr_clone_ringbuf(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr, clone;

	bpf_ringbuf_reserve_dynptr(&kf_rb, 8, 0, &ptr);
	bpf_dynptr_clone(&ptr, &clone);
	bpf_ringbuf_submit_dynptr(&clone, 0);
	return bpf_dynptr_size(&ptr);
}

/* Submitting once is enough for the clone too. */
// vercheck: accept
SEC("tc")
int kf_dynptr_clone_ringbuf_ok(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr, clone;
	__u32 n;

	bpf_ringbuf_reserve_dynptr(&kf_rb, 8, 0, &ptr);
	bpf_dynptr_clone(&ptr, &clone);
	n = bpf_dynptr_size(&clone);
	bpf_ringbuf_discard_dynptr(&ptr, 0);
	return n;
}

/* A writable slice is refused wherever packets are read-only, whatever
 * the dynptr. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "the prog does not allow writes to packet data" without no-dynptr-slice-rdwr
SEC("tp_btf/task_newtask")
int kf_dynptr_ringbuf_rdwr_tracing(void *ctx)
{
	struct bpf_dynptr ptr;
	__u64 *p;

	bpf_ringbuf_reserve_dynptr(&kf_rb, 8, 0, &ptr);
	p = bpf_dynptr_slice_rdwr(&ptr, 0, NULL, 8);
	if (p)
		*p = 1;
	bpf_ringbuf_submit_dynptr(&ptr, 0);
	return 0;
}

/* bpf_dynptr_data on an skb dynptr verifies (it returns NULL at run
 * time). */
// vercheck: accept
SEC("tc")
int kf_dynptr_data_skb(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u8 *p;

	bpf_dynptr_from_skb(skb, 0, &ptr);
	p = bpf_dynptr_data(&ptr, 0, 1);
	return p ? *p : 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} kf_user_rb SEC(".maps");

static long kf_drain_cb(struct bpf_dynptr *dynptr, void *ctx)
{
	__u32 *w;

	if (bpf_dynptr_size(dynptr) < 4)
		return 0;
	w = bpf_dynptr_slice(dynptr, 0, NULL, sizeof(*w));
	if (w)
		*(__u32 *)ctx += *w;
	return 0;
}

/* A drain callback's dynptr is const: kfuncs may still read it. */
// vercheck: accept
SEC("tc")
int kf_dynptr_user_ringbuf(struct __sk_buff *skb)
{
	__u32 sum = 0;

	bpf_user_ringbuf_drain(&kf_user_rb, kf_drain_cb, &sum, 0);
	return sum & 1;
}

/* Writing into an xdp dynptr does not move the packet: the slice stays. */
// vercheck: accept
SEC("xdp")
__naked int kf_dynptr_xdp_slice_after_write(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_xdp];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = 0;"
		"*(u64 *)(r10 - 24) = r1;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -24;"
		"r4 = 1;"
		"r5 = 0;"
		"call %[bpf_dynptr_write];"
		"r0 = *(u32 *)(r6 + 0);"
		"r0 &= 1;"
		"exit;"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_xdp), __imm(bpf_dynptr_slice), __imm(bpf_dynptr_write)
		: __clobber_all);
}

/* A clone of an skb dynptr is an skb dynptr: its slices die with a write
 * into the original. */
// vercheck: reject "R6 invalid mem access 'scalar'"
SEC("tc")
__naked int kf_dynptr_skb_clone_slice(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = r10;"
		"r2 += -32;"
		"call %[bpf_dynptr_clone];"
		"r1 = r10;"
		"r1 += -32;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = 0;"
		"*(u64 *)(r10 - 40) = r1;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -40;"
		"r4 = 1;"
		"r5 = 0;"
		"call %[bpf_dynptr_write];"
		"r0 = *(u32 *)(r6 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_clone), __imm(bpf_dynptr_slice),
		  __imm(bpf_dynptr_write)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
