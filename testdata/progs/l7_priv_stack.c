#include "progs.h"

/* Private stacks (bpf_enable_priv_stack, check_max_stack_depth_subprog):
 * where the JIT may give a frame of 64 bytes or more a stack of its own,
 * that frame leaves the combined 512-byte budget of the call chain. Tracing
 * programs qualify when their trampoline guards against recursion
 * (bpf_prog_check_recur: all but iterators), as the tracepoint types do.
 * Kprobe programs may lack them (stablefix KprobeNoPrivStack, see
 * l12_priv_stack.c). */

static __naked __attribute__((noinline, used)) int l7_big_frame(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 512) = r1;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* 32 bytes in the main frame, 512 in a private one. */
// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without tp-no-priv-stack
SEC("tp_btf/inet_sock_set_state")
__naked int l7_tp_btf_private_stack(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 32) = r1;"
		"call l7_big_frame;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* A classifier has no private stack: 32 + 512 is over the budget. */
// vercheck: reject "combined stack size of 2 calls is 544. Too large"
SEC("tc")
__naked int l7_tc_no_private_stack(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 32) = r1;"
		"call l7_big_frame;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
