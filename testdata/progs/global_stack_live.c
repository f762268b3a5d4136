#include "progs.h"

/* A global function is verified in its own pass, with its own frame 0. The
 * stack slot written on both arms of the branch is read after the join, so
 * it is live there: the path that stores 100 must not be pruned by the
 * checkpoint the path storing 0 left at the join, and its out-of-bounds
 * stack read is found. */
__naked __noinline int gsl_index(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r6 = r0;"
		"r2 = 0;"
		"*(u64 *)(r10 - 32) = r2;"
		"*(u64 *)(r10 - 24) = r2;"
		"r7 = 1;"
		"r8 = 2;"
		"r9 = 3;"
		"if r6 > 10 goto 1f;"
		"r2 = 0;"
		"*(u64 *)(r10 - 8) = r2;"
		"if r7 == 0 goto 2f;"
		"if r8 == 0 goto 2f;"
		"r5 = 0;"
		"r5 = 0;"
		"r5 = 0;"
		"goto 2f;"
		"1: r2 = 100;"
		"*(u64 *)(r10 - 8) = r2;"
		"2: r3 = *(u64 *)(r10 - 8);"
		"r4 = r10;"
		"r4 += -32;"
		"r4 += r3;"
		"r0 = *(u8 *)(r4 + 0);"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

// vercheck: reject "invalid read from stack R4 off=68 size=1"
SEC("socket")
int global_stack_live(struct __sk_buff *skb)
{
	return gsl_index() & 1;
}
