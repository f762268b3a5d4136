#include "progs.h"

/* One branch on one bit of an unknown value: when the bit is clear, add k to
 * an accumulator. */
#define STEP(bit, k) "if r6 & " #bit " goto 1f;" "r7 += " #k ";" "1:"

/* Twenty-four independent branches in a row. Without pruning the verifier
 * would walk 2^24 paths; since the accumulator r7 never needs to be precise,
 * the states at each join point are equivalent and all but one are pruned. */
// vercheck: accept
SEC("socket")
__naked int pruning(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r6 = r0;"
		"r7 = 0;"
		STEP(0x1, 3) STEP(0x2, 5) STEP(0x4, 7) STEP(0x8, 11)
		STEP(0x10, 13) STEP(0x20, 17) STEP(0x40, 19) STEP(0x80, 23)
		STEP(0x100, 29) STEP(0x200, 31) STEP(0x400, 37) STEP(0x800, 41)
		STEP(0x1000, 43) STEP(0x2000, 47) STEP(0x4000, 53) STEP(0x8000, 59)
		STEP(0x10000, 61) STEP(0x20000, 67) STEP(0x40000, 71) STEP(0x80000, 73)
		STEP(0x100000, 79) STEP(0x200000, 83) STEP(0x400000, 89) STEP(0x800000, 97)
		"*(u64 *)(r10 - 8) = r7;"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
