#include "progs.h"

/* A byte swap changes its register in place, so the register must stop
 * sharing bounds with the copies it was linked to (the 6.18 stable fix
 * "bpf: Reset register ID for BPF_END value tracking"). A swap that leaves
 * the value as it is keeps the link. Each program copies r0 to r1, swaps
 * r1, bounds r1 and then asks about r0: the read past the frame is reached
 * only if r0 did not learn r1's bound. */
#define END_LINK_BODY(swap)						\
	asm volatile(							\
		"call %[bpf_get_prandom_u32];"				\
		"r1 = r0;"						\
		swap ";"						\
		"if r1 > 10 goto 1f;"					\
		"if r0 <= 10 goto 1f;"					\
		"r0 = *(u64 *)(r10 + 8);"				\
		"1:"							\
		"r0 = 0;"						\
		"exit;"							\
		:							\
		: __imm(bpf_get_prandom_u32)				\
		: __clobber_all)

/* le64 on a little-endian machine is a no-op: r0 is still r1. */
// vercheck: accept
SEC("socket")
__naked int end_noop_keeps_link(void)
{
	END_LINK_BODY("r1 = le64 r1");
}

/* be16 swaps and truncates: r1's bound says nothing about r0. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("socket")
__naked int end_swap_breaks_link(void)
{
	END_LINK_BODY("r1 = be16 r1");
}

/* le32 only truncates, which is a change too. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("socket")
__naked int end_truncate_breaks_link(void)
{
	END_LINK_BODY("r1 = le32 r1");
}

/* A 64-bit bswap always swaps. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("socket")
__naked int end_bswap64_breaks_link(void)
{
	END_LINK_BODY("r1 = bswap64 r1");
}

char _license[] SEC("license") = "GPL";
