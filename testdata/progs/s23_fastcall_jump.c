#include "progs.h"

/* bpf_fastcall patterns that a jump enters midway. A pattern's spills and
 * fills are dropped after verification, and its slots leave the
 * subprogram's stack depth before the combined stack is measured; but no
 * instruction of it but the first spill may be a jump target (the stable
 * fix of mark_fastcall_pattern_for_call: "stx/ldx/call must not be a jump
 * targets"), else a path entering midway reads slots no spill on it wrote.
 * A pattern cut short keeps its pairs before the target, and a callee
 * whose pattern is gone keeps its 8 bytes: with a caller's 512 the
 * combined stack is 512+16. Each caller spills at fp-512 and calls its
 * callee. */

/* A may_goto loop back to the call. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("uprobe.multi")
__naked int s23_maygoto_into_call(void)
{
	asm volatile ("*(u64 *)(r10 - 512) = r1;"
		      "call s23_maygoto_into_call_sub;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}
__attribute__((used)) __naked static void s23_maygoto_into_call_sub(void)
{
	asm volatile (
	"*(u64 *)(r10 - 8) = r1;"
	"l1_%=: call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"may_goto +1;"
	"goto l1_%=;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A bounded loop back to the call. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("uprobe.multi")
__naked int s23_loop_into_call(void)
{
	asm volatile ("*(u64 *)(r10 - 512) = r1;"
		      "call s23_loop_into_call_sub;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}
__attribute__((used)) __naked static void s23_loop_into_call_sub(void)
{
	asm volatile (
	"r6 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"l1_%=: call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"r6 += 1;"
	"if r6 < 3 goto l1_%=;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A jump to the fill. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("uprobe.multi")
__naked int s23_jump_to_fill(void)
{
	asm volatile ("*(u64 *)(r10 - 512) = r1;"
		      "call s23_jump_to_fill_sub;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}
__attribute__((used)) __naked static void s23_jump_to_fill_sub(void)
{
	asm volatile (
	"r6 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"l1_%=: r1 = *(u64 *)(r10 - 8);"
	"r6 += 1;"
	"if r6 < 3 goto l1_%=;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A loop back to the first spill leaves the pattern whole: the callee's
 * depth is 0. */
// vercheck: accept
SEC("uprobe.multi")
__naked int s23_loop_to_spill(void)
{
	asm volatile ("*(u64 *)(r10 - 512) = r1;"
		      "call s23_loop_to_spill_sub;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}
__attribute__((used)) __naked static void s23_loop_to_spill_sub(void)
{
	asm volatile (
	"r6 = 0;"
	"l1_%=: *(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"r6 += 1;"
	"if r6 < 3 goto l1_%=;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* Two pairs, a jump to the inner spill: the pattern is cut to the inner
 * pair, at fp-8, and the outer spill at fp-16 stays in the stack. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("uprobe.multi")
__naked int s23_jump_to_inner_spill(void)
{
	asm volatile ("*(u64 *)(r10 - 512) = r1;"
		      "call s23_jump_to_inner_spill_sub;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}
__attribute__((used)) __naked static void s23_jump_to_inner_spill_sub(void)
{
	asm volatile (
	"r6 = 0;"
	"r2 = 2;"
	"*(u64 *)(r10 - 16) = r1;"
	"l1_%=: *(u64 *)(r10 - 8) = r2;"
	"call %[bpf_get_smp_processor_id];"
	"r2 = *(u64 *)(r10 - 8);"
	"r1 = *(u64 *)(r10 - 16);"
	"r6 += 1;"
	"if r6 < 3 goto l1_%=;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A may_goto loop after the pattern does not touch it. */
// vercheck: accept
SEC("uprobe.multi")
__naked int s23_maygoto_after(void)
{
	asm volatile ("*(u64 *)(r10 - 512) = r1;"
		      "call s23_maygoto_after_sub;"
		      "r0 = 0;"
		      "exit;" ::: __clobber_all);
}
__attribute__((used)) __naked static void s23_maygoto_after_sub(void)
{
	asm volatile (
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"l2_%=: may_goto +1;"
	"goto l2_%=;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
