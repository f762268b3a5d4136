#include "progs.h"

/* Pruning must not let a packet pointer that a comparison with data_end
 * left "at" (AT_PKT_END) or "beyond" (BEYOND_PKT_END) the end stand for
 * one with a real range: those marks are not byte counts. regsafe demands
 * equal ranges whenever either is such a mark (the 6.18 stable fix "bpf:
 * Fix regsafe() for pointers to packet", stablefix.PktRegsafe; a kernel
 * without it gives the "without" verdicts). */

/* The fall-through of "r8 <= r9" leaves r8 beyond data_end and is explored
 * first; the taken edge arrives with range 0. Had the beyond state covered
 * it, the read at r8 + 4 would never be checked. */
// vercheck: reject "R8 offset is outside of the packet"
// vercheck: accept without pkt-regsafe
SEC("xdp")
__naked int beyond_covers_unchecked(void)
{
	asm volatile(
		"r8 = *(u32 *)(r1 + %[data]);"
		"r9 = *(u32 *)(r1 + %[data_end]);"
		"if r8 <= r9 goto +0;"
		"call %[bpf_get_prandom_u32];"
		"r0 = 0;"
		"r0 = 0;"
		"r0 = 0;"
		"if r8 > r9 goto +1;"
		"r2 = *(u16 *)(r8 + 4);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32),
		  __imm_const(data, offsetof(struct xdp_md, data)),
		  __imm_const(data_end, offsetof(struct xdp_md, data_end))
		: __clobber_all);
}

/* Two paths join at label 2 with r8 marked by different comparisons: the
 * first (r0 != 0) leaves it beyond data_end; the second's comparison is
 * second_cmp, whose fall-through reaches the join. Then "r8 > r9" guards a
 * read of r8 + 4. */
#define JOIN_BODY(second_cmp)							\
	asm volatile(							\
		"r6 = r1;"						\
		"r8 = *(u32 *)(r6 + %[data]);"				\
		"r9 = *(u32 *)(r6 + %[data_end]);"			\
		"call %[bpf_get_prandom_u32];"				\
		"if r0 == 0 goto 1f;"					\
		"if r8 <= r9 goto 3f;"					\
		"goto 2f;"						\
		"1:"							\
		second_cmp ";"						\
		"2:"							\
		"r0 = 0;"						\
		"r0 = 0;"						\
		"r0 = 0;"						\
		"if r8 > r9 goto 3f;"					\
		"r2 = *(u16 *)(r8 + 4);"				\
		"3:"							\
		"r0 = 0;"						\
		"exit;"							\
		:							\
		: __imm(bpf_get_prandom_u32),				\
		  __imm_const(data, offsetof(struct xdp_md, data)),	\
		  __imm_const(data_end, offsetof(struct xdp_md, data_end)) \
		: __clobber_all)

/* "r8 < r9" falls through with r8 at the end, which does not decide
 * "r8 > r9": the beyond state stored at the join must not cover it, or the
 * unchecked read is never seen. */
// vercheck: reject "R8 offset is outside of the packet"
// vercheck: accept without pkt-regsafe
SEC("xdp")
__naked int beyond_covers_at_end(void)
{
	JOIN_BODY("if r8 < r9 goto 3f");
}

/* "r9 >= r8" falls through with r8 beyond the end as well: the same mark
 * on both paths still prunes, and the read is never reached. */
// vercheck: accept
SEC("xdp")
__naked int beyond_covers_beyond(void)
{
	JOIN_BODY("if r9 >= r8 goto 3f");
}

char _license[] SEC("license") = "GPL";
