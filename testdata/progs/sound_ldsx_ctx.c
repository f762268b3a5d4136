#include "progs.h"

/* Sign-extending loads (BPF_MEMSX) of context fields. The packet pointer
 * fields (data, data_meta, data_end) are 32 bits wide in __sk_buff and
 * xdp_md; sign-extending one would corrupt the address the kernel puts in
 * its place, so every program type that offers them refuses the load.
 * Scalar fields may be read sign-extended. */

// vercheck: reject "invalid bpf_context access off=0 size=4"
SEC("xdp")
__naked int sound_ldsx_xdp_data(void)
{
	asm volatile(
		"r2 = *(s32 *)(r1 + 0);"
		"r0 = 2;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "invalid bpf_context access off=8 size=4"
SEC("xdp")
__naked int sound_ldsx_xdp_data_meta(void)
{
	asm volatile(
		"r2 = *(s32 *)(r1 + 8);"
		"r0 = 2;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "invalid bpf_context access off=80 size=4"
SEC("tc")
__naked int sound_ldsx_tc_data_end(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + 76);"
		"r3 = *(s32 *)(r1 + 80);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "invalid bpf_context access off=76 size=4"
SEC("cgroup_skb/ingress")
__naked int sound_ldsx_cgroup_skb_data(void)
{
	asm volatile(
		"r2 = *(s32 *)(r1 + 76);"
		"r0 = 1;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "invalid bpf_context access off=76 size=4"
SEC("flow_dissector")
__naked int sound_ldsx_flow_dissector_data(void)
{
	asm volatile(
		"r2 = *(s32 *)(r1 + 76);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* A scalar field sign-extended: ingress_ifindex, skb->len's low byte. */
// vercheck: accept
SEC("xdp")
__naked int sound_ldsx_xdp_ifindex(void)
{
	asm volatile(
		"r2 = *(s32 *)(r1 + 12);"
		"r0 = 2;"
		"exit;"
		::: __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int sound_ldsx_tc_len_byte(void)
{
	asm volatile(
		"r2 = *(s8 *)(r1 + 0);"
		"r0 = 0;"
		"if r2 s> -129 goto l0_%=;"
		"r0 = *(u64 *)(r10 + 8);"
	"l0_%=:"
		"exit;"
		::: __clobber_all);
}
