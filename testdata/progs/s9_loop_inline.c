#include "progs.h"

/* bpf_loop calls the kernel may inline. The first visit of a bpf_loop call
 * decides whether it is fit: flags (r4) the constant 0. While it stays fit,
 * every visit makes a zero r4 precise, so a state stored earlier with
 * r4 = 0 no longer covers a path with another r4, and that path is walked
 * (more instructions processed). A fit call also gives its subprogram three
 * hidden stack slots after verification, as a reached may_goto gives two.
 */

char _license[] SEC("license") = "GPL";

static __naked __attribute__((noinline, used)) int s9_cb_nothing(void)
{
	asm volatile (
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The fall-through path reaches the join with r4 = 0 and calls bpf_loop
 * first: r4 becomes precise in the stored state, and the jump's path, with
 * an unknown r4, is not pruned at the join. */
// vercheck: accept
SEC("socket")
__naked int s9_loop_flags_precise(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r4 = r0;"
	"if r0 == 7 goto 1f;"
	"r4 = 0;"
	"1:"
	"r1 = 2;"
	"r2 = s9_cb_nothing ll;"
	"r3 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop), __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* Flags that are not 0 at the first visit: the call is never fit, and no
 * later visit looks at r4. */
// vercheck: accept
SEC("socket")
__naked int s9_loop_flags_unfit_first(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r4 = 0;"
	"if r0 == 7 goto 1f;"
	"r4 = 1;"
	"1:"
	"r1 = 2;"
	"r2 = s9_cb_nothing ll;"
	"r3 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop), __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* A may_goto loop next to a fit bpf_loop: both add hidden stack. */
// vercheck: accept
SEC("socket")
__naked int s9_loop_and_may_goto(void)
{
	asm volatile (
	"r6 = 0;"
	"*(u64 *)(r10 - 8) = r6;"
	"2:"
	".byte 0xe5; .byte 0; .short 2; .long 0;"
	"r6 += 1;"
	"goto 2b;"
	"r1 = 3;"
	"r2 = s9_cb_nothing ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}
