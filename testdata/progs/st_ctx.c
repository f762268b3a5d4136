#include "progs.h"

/* An immediate store (BPF_ST) into the context is checked like a register
 * store since Linux 6.3: the program type's context layout says which
 * fields take writes (found by the mutation fuzzer: vercheck refused every
 * BPF_ST into the context). */

// vercheck: accept
SEC("tc")
__naked int st_ctx_mark(void)
{
	asm volatile(
		"*(u32 *)(r1 + %[mark]) = 1;"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(mark, offsetof(struct __sk_buff, mark))
		: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int st_ctx_cb(void)
{
	asm volatile(
		"*(u32 *)(r1 + %[cb0]) = 1;"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(cb0, offsetof(struct __sk_buff, cb[0]))
		: __clobber_all);
}

// vercheck: reject "invalid bpf_context access off=0 size=4"
SEC("socket")
__naked int st_ctx_len(void)
{
	asm volatile(
		"*(u32 *)(r1 + 0) = 1;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "invalid bpf_context access off=0 size=4"
SEC("xdp")
__naked int st_ctx_xdp(void)
{
	asm volatile(
		"*(u32 *)(r1 + 0) = 1;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}
char _license[] SEC("license") = "GPL";
