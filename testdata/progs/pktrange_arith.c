#include "progs.h"

/* What pointer arithmetic does to the mark a comparison with data_end
 * leaves on a packet pointer (AT_PKT_END after "p >= end", BEYOND_PKT_END
 * after "p > end"). Upstream later clears the mark on any arithmetic ("any
 * pointer arithmetic invalidates them"), and so do 6.18.y builds with that
 * stable fix (stablefix.PktRangeArith: the first verdict of each program
 * below). A build without it (6.18.44-fc-v973, the "without" verdicts): adding or subtracting
 * a constant, or subtracting a non-negative variable, keeps the mark, and
 * the next comparison with data_end is decided from it. Only a variable
 * addition, or the subtraction of a possibly negative variable, resets the
 * range (adjust_ptr_min_max_vals). */

/* r9 at or beyond the end, moved back 64 bytes: still marked at the end,
 * so "r9 < r8" is taken as never true and the read is never reached. */
// vercheck: reject "R9 offset is outside of the packet"
// vercheck: accept without pkt-range-arith
SEC("tc")
__naked int at_end_survives_sub(void)
{
	asm volatile(
		"r9 = *(u32 *)(r1 + %[data]);"
		"r8 = *(u32 *)(r1 + %[data_end]);"
		"r9 += 64;"
		"if r9 >= r8 goto 1f;"
		"r0 = 0;"
		"exit;"
		"1:"
		"r9 -= 64;"
		"if r9 < r8 goto 2f;"
		"r0 = 0;"
		"exit;"
		"2:"
		"r0 = *(u8 *)(r9 + 0);"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

/* A copy of a pointer beyond the end, 16 bytes further: still beyond, so
 * "r9 < r3" is decided and the fall-through is never walked. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without pkt-range-arith
SEC("xdp")
__naked int beyond_end_survives_add(void)
{
	asm volatile(
		"r8 = *(u32 *)(r1 + %[data]);"
		"r9 = *(u32 *)(r1 + %[data_end]);"
		"if r8 > r9 goto 1f;"
		"r0 = 0;"
		"exit;"
		"1:"
		"r3 = r8;"
		"r3 += 16;"
		"if r9 < r3 goto 2f;"
		"r0 = *(u64 *)(r10 + 8);"
		"exit;"
		"2:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct xdp_md, data)),
		  __imm_const(data_end, offsetof(struct xdp_md, data_end))
		: __clobber_all);
}

/* The same two comparisons around arithmetic with a bounded variable r7:
 * subtracting it keeps the mark, adding it resets the range, so the second
 * comparison is open and its fall-through, a read past the frame, is
 * walked. */
#define VAR_ARITH_BODY(arith)							\
	asm volatile(								\
		"r7 = *(u32 *)(r1 + %[ifindex]);"				\
		"r7 &= 15;"							\
		"r9 = *(u32 *)(r1 + %[data]);"					\
		"r8 = *(u32 *)(r1 + %[data_end]);"				\
		"if r9 > r8 goto 1f;"						\
		"r0 = 2;"							\
		"exit;"								\
		"1:"								\
		arith ";"							\
		"if r9 > r8 goto 2f;"						\
		"r0 = *(u64 *)(r10 + 8);"					\
		"2:"								\
		"r0 = 2;"							\
		"exit;"								\
		:								\
		: __imm_const(data, offsetof(struct xdp_md, data)),		\
		  __imm_const(data_end, offsetof(struct xdp_md, data_end)),	\
		  __imm_const(ifindex, offsetof(struct xdp_md, ingress_ifindex)) \
		: __clobber_all)

// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without pkt-range-arith
SEC("xdp")
__naked int beyond_end_survives_var_sub(void)
{
	VAR_ARITH_BODY("r9 -= r7");
}

// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("xdp")
__naked int beyond_end_reset_by_var_add(void)
{
	VAR_ARITH_BODY("r9 += r7");
}

char _license[] SEC("license") = "GPL";
