#include "progs.h"

/* Dynptr slices over a stack buffer (stablefix.SliceBufferInvalidate).
 * bpf_dynptr_slice(_rdwr) may return the buffer it is given; this
 * machine's 6.18.44 records the stack bytes the buffer may occupy on the
 * slice ("buf=fp[0]-24+8" in the log) and turns every copy of the slice
 * into a scalar when one of them is written, or when the function whose
 * frame holds the buffer returns. 6.18.0 keeps the slice: the first
 * expectation of each program is this machine's, the "without" line
 * 6.18.0's. */

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern int bpf_dynptr_from_xdp(struct xdp_md *x, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
				   __u32 buffer__szk) __ksym;
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[64]);
} s12_slice_buf_map SEC(".maps");

const char s12_slice_buf_fmt[] = "ab";

/* Well-formed uses, which also give the kfuncs their BTF. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int s12_slice_buf_ok(struct __sk_buff *ctx)
{
	struct bpf_iter_num it;
	struct bpf_dynptr d;
	char buf[8], *p;
	int *n, sum = 0;

	bpf_iter_num_new(&it, 0, 2);
	while ((n = bpf_iter_num_next(&it)))
		sum += *n;
	bpf_iter_num_destroy(&it);
	bpf_dynptr_from_skb(ctx, 0, &d);
	p = bpf_dynptr_slice(&d, 0, buf, sizeof(buf));
	if (p)
		return p[0] + sum;
	p = bpf_dynptr_slice_rdwr(&d, 0, buf, sizeof(buf));
	return p ? p[1] : 0;
}

// vercheck: accept
SEC("xdp")
int s12_slice_buf_ok_xdp(struct xdp_md *ctx)
{
	struct bpf_dynptr d;
	char buf[8], *p;

	bpf_dynptr_from_xdp(ctx, 0, &d);
	p = bpf_dynptr_slice(&d, 0, buf, sizeof(buf));
	return p ? p[0] : XDP_PASS;
}

#define S12_SKB \
	"r2 = 0;" \
	"r3 = r10;" \
	"r3 += -16;" \
	"call %[bpf_dynptr_from_skb];"
#define S12_XDP \
	"r2 = 0;" \
	"r3 = r10;" \
	"r3 += -16;" \
	"call %[bpf_dynptr_from_xdp];"
#define S12_SLICE(fn, dyn, buf, size) \
	"r1 = r10;" \
	"r1 += " #dyn ";" \
	"r2 = 0;" \
	"r3 = r10;" \
	"r3 += " #buf ";" \
	"r4 = " #size ";" \
	"call %[" #fn "];"
#define S12_NULL_SLICE \
	"r1 = r10;" \
	"r1 += -16;" \
	"r2 = 0;" \
	"r3 = 0;" \
	"r4 = 8;" \
	"call %[bpf_dynptr_slice];"
#define S12_VAR_SLICE \
	"r0 &= 8;" \
	"r3 = r10;" \
	"r3 += -40;" \
	"r3 += r0;" \
	"r1 = r10;" \
	"r1 += -16;" \
	"r2 = 0;" \
	"r4 = 8;" \
	"call %[bpf_dynptr_slice];"
#define S12_OUT \
	"l0_%=:" \
	"r0 = 0;" \
	"exit;"
#define S12_LOCAL \
	"r1 = 0;" \
	"*(u32 *)(r10 -4) = r1;" \
	"r2 = r10;" \
	"r2 += -4;" \
	"r1 = %[s12_slice_buf_map] ll;" \
	"call %[bpf_map_lookup_elem];" \
	"if r0 == 0 goto l0_%=;" \
	"r1 = r0;" \
	"r2 = 64;" \
	"r3 = 0;" \
	"r4 = r10;" \
	"r4 += -24;" \
	"call %[bpf_dynptr_from_mem];"
#define S12_PAD \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;"
#define S12_PRUNE_HEAD \
	"r6 = r1;" \
	"r1 = r10;" \
	"r1 += -48;" \
	"r2 = 32;" \
	"r3 = 0;" \
	"call %[bpf_probe_read_kernel];" \
	"r1 = r6;" \
	"r2 = 0;" \
	"r3 = r10;" \
	"r3 += -16;" \
	"call %[bpf_dynptr_from_skb];" \
	"call %[bpf_get_prandom_u32];" \
	"if r0 == 0 goto l1_%=;"
#define S12_PRUNE_OTHER \
	"if r0 == 0 goto l0_%=;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"goto l2_%=;" \
	"l1_%=:"
#define S12_PRUNE_JOIN \
	"if r0 == 0 goto l0_%=;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"l2_%=:" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;" \
	"r5 = 0;"

/* A store over the buffer ends a read-only slice too. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_ro_store(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* One byte is enough: the last one of a 16-byte buffer at fp-40. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_last_byte(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -40, 16)
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 -25) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* Bytes next to the buffer, on both sides, are not the buffer. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_outside(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -40, 16)
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 -41) = r1;"
		"*(u64 *)(r10 -48) = r1;"
		"*(u8 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* An unaligned 5-byte buffer at fp-37: the bytes around it are free... */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_unaligned(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -37, 5)
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 -38) = r1;"
		"*(u8 *)(r10 -32) = r1;"
		"*(u8 *)(r10 -31) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* ... its last byte is not. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_unaligned_in(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -37, 5)
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 -33) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A slice without a buffer has nothing to lose. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_null_buffer(void)
{
	asm volatile(
		S12_SKB
		S12_NULL_SLICE
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* Reading the buffer changes nothing. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_read(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r1 = *(u64 *)(r10 -24);"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* Before its NULL check the slice becomes a scalar like any other:
 * both branches of the check are walked. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_before_null_check(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"if r0 == 0 goto l0_%=;"
		"r1 = 1;"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* Every copy goes, taken before the NULL check or moved since. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_copies(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"r7 = r0;"
		"if r0 == 0 goto l0_%=;"
		"r8 = r0;"
		"r8 += 2;"
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r7 +0);"
		"r1 = *(u8 *)(r8 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* ... a moved copy alone too. */
// vercheck: reject "R8 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_moved_copy(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r8 = r0;"
		"r8 += 2;"
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r8 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A spilled copy reads back as a scalar. */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_spilled(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"*(u64 *)(r10 -32) = r0;"
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"r1 = *(u64 *)(r10 -32);"
		"r2 = *(u8 *)(r1 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* Spilling the slice into its own buffer ends it, spill included. */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_self_spill(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"*(u64 *)(r10 -24) = r0;"
		"r1 = *(u64 *)(r10 -24);"
		"r1 = *(u8 *)(r1 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A pointer spill over the buffer. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_ptr_spill(void)
{
	asm volatile(
		"r6 = r1;"
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"*(u64 *)(r10 -24) = r6;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A store through another pointer to the same bytes. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_alias_store(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r2 = r10;"
		"r2 += -24;"
		"r1 = 0;"
		"*(u32 *)(r2 +4) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A store of an immediate. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_st_imm(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"*(u16 *)(r10 -20) = 0;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* An atomic add. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_atomic(void)
{
	asm volatile(
		S12_SKB
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r1 = 1;"
		"lock *(u64 *)(r10 -24) += r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A store at a variable offset that may reach the buffer. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_varoff_store(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r7 = r0;"
		"call %[bpf_get_prandom_u32];"
		"r0 &= 8;"
		"r1 = r10;"
		"r1 += -32;"
		"r1 += r0;"
		"r2 = 0;"
		"*(u8 *)(r1 +0) = r2;"
		"r1 = *(u8 *)(r7 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* A buffer at a variable offset (fp-40 or fp-32, 8 bytes) covers fp-40 to
 * fp-25: fp-24 is outside... */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_varoff_buffer(void)
{
	asm volatile(
		S12_SKB
		"call %[bpf_get_prandom_u32];"
		S12_VAR_SLICE
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* ... fp-25 inside. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_varoff_buffer_hit(void)
{
	asm volatile(
		S12_SKB
		"call %[bpf_get_prandom_u32];"
		S12_VAR_SLICE
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 -25) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A helper that fills part of the buffer. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_helper_write(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r7 = r0;"
		"r1 = r10;"
		"r1 += -20;"
		"r2 = 4;"
		"r3 = 0;"
		"call %[bpf_probe_read_kernel];"
		"r1 = *(u8 *)(r7 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm(bpf_probe_read_kernel)
		: __clobber_all);
}

/* A helper whose writable argument is no raw buffer (bpf_snprintf's string)
 * writes through the memory check, as a kfunc does: the slice stays. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_snprintf(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r7 = r0;"
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 8;"
		"r3 = %[s12_slice_buf_fmt] ll;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_snprintf];"
		"r1 = *(u8 *)(r7 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm_addr(s12_slice_buf_fmt), __imm(bpf_snprintf)
		: __clobber_all);
}

/* A dynptr built over the buffer. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_dynptr_over(void)
{
	asm volatile(
		"r6 = r1;"
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -40, 16)
		"if r0 == 0 goto l0_%=;"
		"r7 = r0;"
		"r1 = r6;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -40;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = *(u8 *)(r7 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A second slice over the same buffer: the kfunc's memory check writes the
 * buffer without ending the first. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_second_slice(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r7 = r0;"
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"r1 = *(u8 *)(r7 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* Two slices over two buffers: a store over one ends that one only. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_two_slices(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"r7 = r0;"
		S12_SLICE(bpf_dynptr_slice, -16, -32, 8)
		"if r7 == 0 goto l0_%=;"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u64 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		"r1 = *(u8 *)(r7 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s12_slice_buf_write_r1(void)
{
	asm volatile(
		"r2 = 0;"
		"*(u64 *)(r1 +0) = r2;"
		"r0 = 0;"
		"exit;"
		:
		: 
		: __clobber_all);
}

/* A callee's store through a pointer to the caller's buffer. */
// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_callee_write(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = r10;"
		"r1 += -24;"
		"call s12_slice_buf_write_r1;"
		"r1 = *(u8 *)(r6 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* ... a copy the caller spilled goes too. */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_callee_write_spilled(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"*(u64 *)(r10 -32) = r0;"
		"r1 = r10;"
		"r1 += -24;"
		"call s12_slice_buf_write_r1;"
		"r1 = *(u64 *)(r10 -32);"
		"r1 = *(u8 *)(r1 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s12_slice_buf_write_own(void)
{
	asm volatile(
		"r2 = 0;"
		"*(u64 *)(r10 -24) = r2;"
		"r0 = 0;"
		"exit;"
		:
		: 
		: __clobber_all);
}

/* fp-24 of the callee's frame is not fp-24 of the caller's. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_callee_own_stack(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"call s12_slice_buf_write_own;"
		"r1 = *(u8 *)(r6 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s12_slice_buf_slice_caller(void)
{
	asm volatile(
		"r6 = r2;"
		"r2 = 0;"
		"r3 = r6;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice];"
		"if r0 == 0 goto l0_%=;"
		"r2 = 0;"
		"*(u64 *)(r6 +0) = r2;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A callee's slice over the caller's buffer (buf=fp[0]-24+8). */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_in_callee(void)
{
	asm volatile(
		S12_SKB
		"r1 = r10;"
		"r1 += -16;"
		"r2 = r10;"
		"r2 += -24;"
		"call s12_slice_buf_slice_caller;"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s12_slice_buf_slice_own(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -8;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice];"
		"exit;"
		:
		: __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* The exit of the frame that holds the buffer ends the slice. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_return_own(void)
{
	asm volatile(
		S12_SKB
		"r1 = r10;"
		"r1 += -16;"
		"call s12_slice_buf_slice_own;"
		"if r0 == 0 goto l0_%=;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s12_slice_buf_cb_write(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r2 +0) = r1;"
		"r0 = 0;"
		"exit;"
		:
		: 
		: __clobber_all);
}

/* A bpf_loop callback's store into the caller's buffer. */
// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_bpf_loop(void)
{
	asm volatile(
		S12_SKB
		S12_SLICE(bpf_dynptr_slice, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = 3;"
		"r2 = s12_slice_buf_cb_write ll;"
		"r3 = r10;"
		"r3 += -24;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"r1 = *(u8 *)(r6 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm(bpf_loop)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s12_slice_buf_cb_stash(void)
{
	asm volatile(
		"r6 = r2;"
		"r1 = r2;"
		"r1 += 16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -8;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice];"
		"*(u64 *)(r6 +0) = r0;"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A callback's slice over its own stack, stashed in the caller's. */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_callback_stash(void)
{
	asm volatile(
		S12_SKB
		"r1 = 0;"
		"*(u64 *)(r10 -32) = r1;"
		"r1 = 1;"
		"r2 = s12_slice_buf_cb_stash ll;"
		"r3 = r10;"
		"r3 += -32;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"r1 = *(u64 *)(r10 -32);"
		"if r1 == 0 goto l0_%=;"
		"r0 = *(u8 *)(r1 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_loop)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s12_slice_buf_cb_ret(void)
{
	asm volatile(
		"r1 = r2;"
		"r1 += 16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -8;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice];"
		"exit;"
		:
		: __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* A callback returns its slice over its own stack: r0 is checked as a
 * scalar before the callback's frame (and the slice with it) ends. */
// vercheck: reject "R0 not a scalar value"
SEC("tc")
__naked int s12_slice_buf_callback_ret(void)
{
	asm volatile(
		S12_SKB
		"r1 = 1;"
		"r2 = s12_slice_buf_cb_ret ll;"
		"r3 = r10;"
		"r3 += -32;"
		"r4 = 0;"
		"call %[bpf_loop];"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_loop)
		: __clobber_all);
}

/* A loop keeps the slice of the previous iteration while it stores beside
 * the buffer... */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_iter_keep(void)
{
	asm volatile(
		S12_SKB
		"r1 = r10;"
		"r1 += -32;"
		"r2 = 0;"
		"r3 = 10;"
		"call %[bpf_iter_num_new];"
		"r6 = 0;"
	"l1_%=:"
		"r1 = r10;"
		"r1 += -32;"
		"call %[bpf_iter_num_next];"
		"if r0 == 0 goto l2_%=;"
		"if r6 == 0 goto l3_%=;"
		"r1 = *(u8 *)(r6 +0);"
	"l3_%=:"
		S12_SLICE(bpf_dynptr_slice, -16, -40, 8)
		"if r0 == 0 goto l1_%=;"
		"r6 = r0;"
		"r1 = 0;"
		"*(u64 *)(r10 -48) = r1;"
		"goto l1_%=;"
	"l2_%=:"
		"r1 = r10;"
		"r1 += -32;"
		"call %[bpf_iter_num_destroy];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_iter_num_new), __imm(bpf_iter_num_next), __imm(bpf_dynptr_slice), __imm(bpf_iter_num_destroy)
		: __clobber_all);
}

/* ... not when it stores into it before taking the next slice. */
// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_iter_kill(void)
{
	asm volatile(
		S12_SKB
		"r1 = r10;"
		"r1 += -32;"
		"r2 = 0;"
		"r3 = 10;"
		"call %[bpf_iter_num_new];"
		"r6 = 0;"
	"l1_%=:"
		"r1 = r10;"
		"r1 += -32;"
		"call %[bpf_iter_num_next];"
		"if r0 == 0 goto l2_%=;"
		"if r6 == 0 goto l3_%=;"
		"r1 = *(u8 *)(r6 +0);"
	"l3_%=:"
		"r1 = 0;"
		"*(u64 *)(r10 -40) = r1;"
		S12_SLICE(bpf_dynptr_slice, -16, -40, 8)
		"if r0 == 0 goto l1_%=;"
		"r6 = r0;"
		"goto l1_%=;"
	"l2_%=:"
		"r1 = r10;"
		"r1 += -32;"
		"call %[bpf_iter_num_destroy];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_iter_num_new), __imm(bpf_iter_num_next), __imm(bpf_dynptr_slice), __imm(bpf_iter_num_destroy)
		: __clobber_all);
}

/* Slices of a local dynptr (buffer at fp-32) ... */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "R0 invalid mem access 'scalar'" without no-dynptr-slice-rdwr
// (A kernel that allows bpf_dynptr_slice_rdwr and lacks slice-buffer-invalidate: accept.)
SEC("tc")
__naked int s12_slice_buf_local(void)
{
	asm volatile(
		S12_LOCAL
		S12_SLICE(bpf_dynptr_slice_rdwr, -24, -32, 8)
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 -32) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm_addr(s12_slice_buf_map), __imm(bpf_map_lookup_elem), __imm(bpf_dynptr_from_mem), __imm(bpf_dynptr_slice_rdwr)
		: __clobber_all);
}

/* ... and of an XDP one. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "R0 invalid mem access 'scalar'" without no-dynptr-slice-rdwr
// (A kernel that allows bpf_dynptr_slice_rdwr and lacks slice-buffer-invalidate: accept.)
SEC("xdp")
__naked int s12_slice_buf_xdp(void)
{
	asm volatile(
		S12_XDP
		S12_SLICE(bpf_dynptr_slice_rdwr, -16, -24, 8)
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 -24) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_dynptr_from_xdp), __imm(bpf_dynptr_slice_rdwr)
		: __clobber_all);
}

/* Pruning (the head makes fp-48 to fp-17 plain data, a branch takes a
 * slice on each side, the sides join after enough instructions for a
 * checkpoint): two paths join with a slice over the same buffer: the second is
 * pruned. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_prune_same(void)
{
	asm volatile(
		S12_PRUNE_HEAD
		S12_SLICE(bpf_dynptr_slice, -16, -32, 8)
		S12_PRUNE_OTHER
		S12_SLICE(bpf_dynptr_slice, -16, -32, 8)
		S12_PRUNE_JOIN
		"r1 = 0;"
		"*(u64 *)(r10 -48) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_probe_read_kernel), __imm(bpf_dynptr_from_skb), __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* ... over a buffer that covers the current one (fp-40+16 against fp-32+8):
 * not pruned, the buffers differ. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_prune_covering(void)
{
	asm volatile(
		S12_PRUNE_HEAD
		S12_VAR_SLICE
		S12_PRUNE_OTHER
		S12_SLICE(bpf_dynptr_slice, -16, -32, 8)
		S12_PRUNE_JOIN
		"r1 = 0;"
		"*(u64 *)(r10 -48) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_probe_read_kernel), __imm(bpf_dynptr_from_skb), __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* ... with a buffer against none: not pruned. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_buf_prune_old_buffer(void)
{
	asm volatile(
		S12_PRUNE_HEAD
		S12_SLICE(bpf_dynptr_slice, -16, -32, 8)
		S12_PRUNE_OTHER
		S12_NULL_SLICE
		S12_PRUNE_JOIN
		"r1 = 0;"
		"*(u64 *)(r10 -48) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_probe_read_kernel), __imm(bpf_dynptr_from_skb), __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

/* ... with none against a buffer: not pruned, and the store that ends the
 * current slice is seen. */
// vercheck: reject "R0 invalid mem access 'scalar'"
// vercheck: accept without slice-buffer-invalidate
SEC("tc")
__naked int s12_slice_buf_prune_old_null(void)
{
	asm volatile(
		S12_PRUNE_HEAD
		S12_NULL_SLICE
		S12_PRUNE_OTHER
		S12_SLICE(bpf_dynptr_slice, -16, -32, 8)
		S12_PRUNE_JOIN
		"r1 = 0;"
		"*(u64 *)(r10 -32) = r1;"
		"r1 = *(u8 *)(r0 +0);"
		S12_OUT
		:
		: __imm(bpf_probe_read_kernel), __imm(bpf_dynptr_from_skb), __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
