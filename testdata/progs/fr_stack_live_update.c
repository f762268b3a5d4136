#include "progs.h"

/* Stack liveness is recomputed where the kernel recomputes it: at the end
 * of every path and when a function returns (bpf_update_live_stack). A
 * checkpoint cleaned in between only sees the reads and writes recorded up
 * to then, not those of the path being explored.
 *
 * A generated program with two may_goto loops, the inner one reading and
 * narrowly rewriting fp-24: the first read of fp-24 on the current path is
 * not yet known when the outer loop's checkpoint is cleaned, so fp-24 is
 * dead there and the loop head is pruned, as the kernel does
 * (insn_processed 494, not 498). */

#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

char _license[] SEC("license") = "GPL";

// vercheck: accept
SEC("xdp")
__naked int fr_stack_live_update_loops(void)
{
	asm volatile (
	"r8 = r1;"
	"r6 = *(u32 *)(r1 +0);"
	"r7 = *(u32 *)(r1 +4);"
	"r0 = r6;"
	"r0 += 16;"
	"if r0 > r7 goto +29;"
	"*(u64 *)(r10 -8) = 0;"
	"*(u64 *)(r10 -16) = 0;"
	"*(u64 *)(r10 -24) = 0;"
	"*(u64 *)(r10 -32) = 0;"
	"r2 = 2;"
	"r3 = 2;"
	"r4 = 1;"
	"r5 = 2;"
	"r9 = 0;"
	"r0 = 0;"
	"r1 = 0;"
	MAY_GOTO(13)
	"r1 += 1;"
	"if r1 > 0x6 goto +11;"
	MAY_GOTO(8)
	"r0 = r5;"
	"r5 <<= r0;"
	"*(u8 *)(r10 -32) = 2;"
	"r3 = *(u64 *)(r10 -24);"
	"*(u8 *)(r10 -24) = 0;"
	"r0 = r10;"
	"r0 += r9;"
	"goto -9;"
	"r9 += 2;"
	"goto -14;"
	"r5 += 1;"
	"r0 = r10;"
	"r0 += r9;"
	"r5 = *(u64 *)(r10 -16);"
	"r0 = 2;"
	"exit;"
	::: __clobber_all);
}
