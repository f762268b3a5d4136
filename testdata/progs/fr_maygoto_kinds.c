#include "progs.h"

/* may_goto loops in which a register changes kind from one iteration to
 * the next. The loop head is a checkpoint compared in RANGE_WITHIN mode with
 * the previous iterations (is_state_visited): a register of another kind,
 * or one that was never written, never matches, so the later iterations
 * are explored and their unsafe uses found. */

#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

char _license[] SEC("license") = "GPL";

/* r5 is 0 on the first pass and a packet pointer afterwards: shifting an
 * unbounded scalar by it is pointer arithmetic on the later passes. */
// vercheck: reject "math between pkt pointer and register with unbounded min value is not allowed"
SEC("xdp")
__naked int fr_maygoto_scalar_then_pkt(void)
{
	asm volatile (
	"r6 = *(u32 *)(r1 + 0);"
	"r7 = *(u32 *)(r1 + 4);"
	"call %[bpf_ktime_get_ns];"
	"r8 = r0;"
	"r0 = r6;"
	"r0 += 8;"
	"if r0 > r7 goto l9_%=;"
	"r5 = 0;"
"l0_%=:"
	MAY_GOTO(2)
	"r5 = r6;"
	"goto l0_%=;"
	"r2 = r8;"
	"r2 <<= r5;"
"l9_%=:"
	"r0 = 2;"
	"exit;"
	:: __imm(bpf_ktime_get_ns) : __clobber_all);
}

/* r5 is never written before the first exit from the loop, a scalar on
 * the later ones: the first pass already reads it uninitialised. The loop
 * body assigns it only after may_goto. */
// vercheck: reject "R5 !read_ok"
SEC("xdp")
__naked int fr_maygoto_uninit_then_scalar(void)
{
	asm volatile (
"l0_%=:"
	MAY_GOTO(2)
	"r5 = 1;"
	"goto l0_%=;"
	"r0 = r5;"
	"r0 &= 1;"
	"exit;"
	::: __clobber_all);
}

/* r5 is a stack pointer on the first pass and the context later: the
 * store through it is fine on the stack and refused into the context. */
// vercheck: reject "invalid bpf_context access off=0 size=8"
SEC("xdp")
__naked int fr_maygoto_stack_then_ctx(void)
{
	asm volatile (
	"r6 = r1;"
	"r5 = r10;"
	"r5 += -8;"
"l0_%=:"
	MAY_GOTO(2)
	"r5 = r6;"
	"goto l0_%=;"
	"r1 = 0;"
	"*(u64 *)(r5 + 0) = r1;"
	"r0 = 2;"
	"exit;"
	::: __clobber_all);
}

/* The same with the kinds changing through a spill: the slot holds a
 * scalar first and a packet pointer later. */
// vercheck: reject "math between pkt pointer and register with unbounded min value is not allowed"
SEC("xdp")
__naked int fr_maygoto_spill_scalar_then_pkt(void)
{
	asm volatile (
	"r6 = *(u32 *)(r1 + 0);"
	"r7 = *(u32 *)(r1 + 4);"
	"call %[bpf_ktime_get_ns];"
	"r8 = r0;"
	"r0 = r6;"
	"r0 += 8;"
	"if r0 > r7 goto l9_%=;"
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
"l0_%=:"
	MAY_GOTO(2)
	"*(u64 *)(r10 - 8) = r6;"
	"goto l0_%=;"
	"r5 = *(u64 *)(r10 - 8);"
	"r2 = r8;"
	"r2 <<= r5;"
"l9_%=:"
	"r0 = 2;"
	"exit;"
	:: __imm(bpf_ktime_get_ns) : __clobber_all);
}

/* Safe throughout: r5 alternates between two scalars, and the loop
 * converges once the imprecise value is widened. */
// vercheck: accept
SEC("xdp")
__naked int fr_maygoto_scalar_flip(void)
{
	asm volatile (
	"r5 = 0;"
"l0_%=:"
	MAY_GOTO(2)
	"r5 ^= 1;"
	"goto l0_%=;"
	"r0 = r5;"
	"r0 &= 1;"
	"r0 += 1;"
	"exit;"
	::: __clobber_all);
}
