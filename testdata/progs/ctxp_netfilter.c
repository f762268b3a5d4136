// Netfilter programs: the context (struct bpf_nf_ctx, kernel-internal) holds
// two trusted BTF pointers, the hook state at offset 0 and the sk_buff at
// offset 8; loads through them walk the kernel structs. The program returns
// NF_DROP (0) or NF_ACCEPT (1).
#include "progs.h"

char _license[] SEC("license") = "GPL";

/* Read the hook number and the packet length. */
// vercheck: accept
SEC("netfilter")
__naked int ctxp_nf_read(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"r3 = *(u8 *)(r2 + 0);"
	"r4 = *(u64 *)(r1 + 8);"
	"r5 = *(u32 *)(r4 + 112);"
	"r0 = 1;"
	"if r3 != 1 goto 1f;"
	"if r5 > 1500 goto 1f;"
	"r0 = 0;"
	"1: exit;"
	::: __clobber_all);
}

/* The pointers are read whole. */
// vercheck: reject "invalid bpf_context access off=8 size=4"
SEC("netfilter")
__naked int ctxp_nf_narrow(void)
{
	asm volatile (
	"r2 = *(u32 *)(r1 + 8);"
	"r0 = 1;"
	"exit;"
	::: __clobber_all);
}

/* The context is read-only. */
// vercheck: reject "invalid bpf_context access off=8 size=8"
SEC("netfilter")
__naked int ctxp_nf_write(void)
{
	asm volatile (
	"r2 = 0;"
	"*(u64 *)(r1 + 8) = r2;"
	"r0 = 1;"
	"exit;"
	::: __clobber_all);
}

/* Nothing past the two pointers. */
// vercheck: reject "invalid bpf_context access off=16 size=8"
SEC("netfilter")
__naked int ctxp_nf_past_end(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 16);"
	"r0 = 1;"
	"exit;"
	::: __clobber_all);
}

/* A verdict outside NF_DROP and NF_ACCEPT. */
// vercheck: reject "At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]"
SEC("netfilter")
__naked int ctxp_nf_bad_verdict(void)
{
	asm volatile (
	"r0 = 2;"
	"exit;"
	::: __clobber_all);
}

/* skb-specific helpers are not netfilter helpers. */
// vercheck: reject "program of this type cannot use helper bpf_skb_load_bytes#26"
SEC("netfilter")
__naked int ctxp_nf_skb_helper(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -8;"
	"r4 = 4;"
	"call %[bpf_skb_load_bytes];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_skb_load_bytes)
	: __clobber_all);
}
