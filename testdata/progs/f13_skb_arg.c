#include "progs.h"

/* bpf_dynptr_from_skb's struct __sk_buff argument in a netfilter program,
 * whose context (struct bpf_nf_ctx) is not __sk_buff. The running
 * 6.18.44-fc-v1045 kernel (stablefix.SkbArgBTFID, the first expectations)
 * takes the argument as the sk_buff it projects whatever the register, so
 * anything but a trusted sk_buff is "R1 must be referenced or trusted".
 * 6.18.0 (the "without" expectations) does so only for a BTF pointer and
 * takes any other register as memory, refused because __sk_buff holds
 * pointers. Found as a message difference by the fuzz run of seed
 * 20261310 (mutant 889: the call repeated in a loop, where r1 is no longer
 * initialised). */

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;

/* The skb of the context: a trusted sk_buff, taken for the __sk_buff. */
// vercheck: accept
SEC("netfilter")
__naked int f13_skb_arg_ctx_skb(void)
{
	asm volatile (
	"r1 = *(u64 *)(r1 + 8);"
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r0 = 1;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb) : __clobber_all);
}

/* The same sk_buff at an offset: the kernel walks sk_buff for the
 * __sk_buff from there and finds none ("R1 has a pointer to STRUCT
 * sk_buff"). Found by the fuzz run of seed 20262202 (mutant 26223, off 1),
 * which vercheck had accepted. */
// vercheck: reject "kernel function bpf_dynptr_from_skb args#0 expected pointer to STRUCT __sk_buff but R1 has a pointer to STRUCT sk_buff"
SEC("netfilter")
__naked int f13_skb_arg_ctx_skb_off(void)
{
	asm volatile (
	"r1 = *(u64 *)(r1 + 8);"
	"r1 += 8;"
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r0 = 1;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb) : __clobber_all);
}

/* A stack pointer. */
// vercheck: reject "R1 must be referenced or trusted"
// vercheck: reject "arg#0 pointer type STRUCT __sk_buff must point to scalar, or struct with scalar" without skb-arg-btf-id
SEC("netfilter")
__naked int f13_skb_arg_stack(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -32;"
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r0 = 1;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb) : __clobber_all);
}

/* The fuzz run's shape: a second call, after the first one scratched r1. */
// vercheck: reject "R1 must be referenced or trusted"
// vercheck: reject "arg#0 pointer type STRUCT __sk_buff must point to scalar, or struct with scalar" without skb-arg-btf-id
SEC("netfilter")
__naked int f13_skb_arg_uninit(void)
{
	asm volatile (
	"r1 = *(u64 *)(r1 + 8);"
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -32;"
	"call %[bpf_dynptr_from_skb];"
	"r0 = 1;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb) : __clobber_all);
}

/* Keeps the kfunc's declaration in the object's BTF. */
// vercheck: accept
SEC("tc")
int f13_skb_arg_tc(struct __sk_buff *skb)
{
	struct bpf_dynptr p;

	return bpf_dynptr_from_skb(skb, 0, &p) ? 1 : 0;
}

char _license[] SEC("license") = "GPL";
