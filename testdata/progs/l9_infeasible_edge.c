#include "progs.h"

/* A conditional jump whose edge is infeasible although is_branch_taken
 * cannot tell: r1 is 0 or 32 (tnum 0x0/0x20), r2 lies in [1, 31], so
 * "r1 == r2" never holds, yet their ranges and tnums overlap. Refining
 * the taken edge intersects the two (range [1, 31], tnum the constant 0),
 * bounds no value satisfies: reg_bounds_sanity_check reports them and, on
 * a normal load, resets the register to unbounded bounds (keeping the
 * tnum) and goes on, so the dead edge is walked. Under
 * BPF_F_TEST_REG_INVARIANTS the same check fails the load (EFAULT, with a
 * kernel warning), which vercheck refuses as a kernel fault instead
 * (TestRegInvariantsFlag). */

// vercheck: accept
SEC("socket")
__naked int l9_infeasible_jeq(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r6 = r0;"
		"r6 &= 32;"
		"call %[bpf_get_prandom_u32];"
		"r7 = r0;"
		"r7 &= 31;"
		"if r7 == 0 goto 1f;"
		"if r6 == r7 goto 2f;"
		"1: r0 = 0;"
		"exit;"
		"2: r0 = r6;"
		"r0 += 1;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* The 32-bit "w6 == w7" of r6 = x & ~0xc in [-41, 67] and r7 = y & 0x1d
 * | ~0x3f in [-60, -35]: refining the taken edge leaves r6's 64-bit
 * unsigned range inverted while r7's bounds stay consistent (its low 32
 * bits narrow to [-60, -47]). reg_set_min_max checks each register on its
 * own, so only r6 is reset; r7 keeps its bounds and "r7 s< -60" is decided
 * (the load from r10 + 8 is never reached). vercheck reset both registers
 * when either failed, and walked that branch. */
// vercheck: accept
SEC("socket")
__naked int l9_infeasible_one_reg(void)
{
	asm volatile(
		"call %[bpf_ktime_get_ns];"
		"r6 = r0;"
		"r6 &= -13;"
		"if r6 s< -41 goto 1f;"
		"if r6 s> 67 goto 1f;"
		"call %[bpf_ktime_get_ns];"
		"r7 = r0;"
		"r7 &= 0x1d;"
		"r7 |= -64;"
		"if r7 s< -60 goto 1f;"
		"if w6 == w7 goto 2f;"
		"1: r0 = 0;"
		"exit;"
		"2: if r7 s< -60 goto 3f;"
		"r0 = 0;"
		"exit;"
		"3: r0 = *(u64 *)(r10 + 8);"
		"exit;"
		:
		: __imm(bpf_ktime_get_ns)
		: __clobber_all);
}

/* A register compared with itself: on the dead taken edge of "w3 < w3" the
 * refined bounds are out of order (true_reg1); the reset to unbounded
 * keeps the tnum, whose constant low half is then out of sync with the
 * range, and the same register checked as true_reg2 is reported again.
 * Both lines are in the log; the path goes on. */
// vercheck: accept
SEC("socket")
__naked int l9_infeasible_same_reg(void)
{
	asm volatile(
		"call %[bpf_ktime_get_ns];"
		"r3 = r0;"
		"r3 &= 0x80000000;"
		"if w3 < w3 goto 1f;"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm(bpf_ktime_get_ns)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
