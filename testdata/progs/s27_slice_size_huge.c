#include "progs.h"

/* A constant bpf_dynptr_slice size of 2^31 or more: the slice's mem_size
 * is a u32, so every access whose offset BPF_MAX_VAR_OFF bounds is inside
 * it, and a helper may read it up to BPF_MAX_VAR_SIZ. */

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

#define SLICE(size)				\
	"r2 = 0;"				\
	"r3 = r10;"				\
	"r3 += -16;"				\
	"call %[bpf_dynptr_from_skb];"		\
	"r1 = r10;"				\
	"r1 += -16;"				\
	"r2 = 0;"				\
	"r3 = 0;"				\
	"r4 = " size ";"			\
	"call %[bpf_dynptr_slice];"		\
	"if r0 == 0 goto 1f;"

/* 2^31: a read far into it. */
// vercheck: accept
SEC("tc")
__naked int s27_slice_2g_read(void)
{
	asm volatile(
	SLICE("0x80000000 ll")
	"r1 = *(u64 *)(r0 + 4096);"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice) : __clobber_all);
}

/* 4 GiB - 1 as a negative 32-bit immediate, sign-extended: 0xffffffff
 * after truncation. */
// vercheck: accept
SEC("tc")
__naked int s27_slice_4g_read(void)
{
	asm volatile(
	SLICE("-1")
	"r1 = *(u32 *)(r0 + 32760);"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice) : __clobber_all);
}

/* A variable offset up to BPF_MAX_VAR_OFF - 1 into it. */
// vercheck: accept
SEC("tc")
__naked int s27_slice_2g_var_off(void)
{
	asm volatile(
	SLICE("0x80000000 ll")
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 0x1fffffff;"
	"r6 += r0;"
	"r1 = *(u8 *)(r6 + 0);"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* A write to the read-only slice is still refused. */
// vercheck: reject "R0 cannot write into rdonly_mem"
SEC("tc")
__naked int s27_slice_2g_write(void)
{
	asm volatile(
	SLICE("0x80000000 ll")
	"*(u8 *)(r0 + 0) = 1;"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice) : __clobber_all);
}

/* A negative offset is outside. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
SEC("tc")
__naked int s27_slice_2g_negative(void)
{
	asm volatile(
	SLICE("0xfffffff0 ll")
	"r1 = *(u8 *)(r0 - 1);"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice) : __clobber_all);
}

/* Given to a helper as memory of a bounded size. */
// vercheck: accept
SEC("tc")
__naked int s27_slice_2g_helper(void)
{
	asm volatile(
	SLICE("0x80000000 ll")
	"r1 = r0;"
	"r2 = 1024;"
	"r3 = 0;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_csum_diff];"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice), __imm(bpf_csum_diff) : __clobber_all);
}

/* The asm-only kfuncs need a C use for their BTF. */
// vercheck: accept
SEC("tc")
int s27_slice_c_use(struct __sk_buff *skb)
{
	struct bpf_dynptr p;
	__u8 *s;

	bpf_dynptr_from_skb(skb, 0, &p);
	s = bpf_dynptr_slice(&p, 0, NULL, 1);
	return s ? *s : 0;
}

char _license[] SEC("license") = "GPL";
