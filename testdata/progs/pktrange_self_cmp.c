#include "progs.h"

/* A register compared with itself. The 6.18 kernel decides such a branch
 * only from the register's bounds, and then refines both edges through
 * regs_refine_cond_op with its two operands being one register: "r < r"
 * (and ">", signed or 32-bit alike) leaves r with its maximum one lower
 * and its minimum one higher, while every other comparison leaves it as
 * it is. With r0 from bpf_get_prandom_u32 (minimum 0), the edge where
 * "r1 > r1" holds knows r1 != 0, so the read past the frame behind
 * "r1 == 0" is never walked. */
#define SELF_CMP_BODY(cmp)						\
	asm volatile(							\
		"call %[bpf_get_prandom_u32];"				\
		"r1 = r0;"						\
		"r1 &= 0xff;"						\
		"if " cmp " goto 1f;"					\
		"r0 = 0;"						\
		"exit;"							\
		"1:"							\
		"if r1 == 0 goto 2f;"					\
		"r0 = 0;"						\
		"exit;"							\
		"2:"							\
		"r0 = *(u64 *)(r10 + 8);"				\
		"exit;"							\
		:							\
		: __imm(bpf_get_prandom_u32)				\
		: __clobber_all)

// vercheck: accept
SEC("socket")
__naked int self_gt_raises_min(void)
{
	SELF_CMP_BODY("r1 > r1");
}

// vercheck: accept
SEC("socket")
__naked int self_slt32_raises_min(void)
{
	SELF_CMP_BODY("w1 s< w1");
}

/* "r1 >= r1" holds with r1 unchanged: r1 may still be 0. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("socket")
__naked int self_ge_keeps_min(void)
{
	SELF_CMP_BODY("r1 >= r1");
}

char _license[] SEC("license") = "GPL";
