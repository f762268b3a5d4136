#include "progs.h"

/* Conditional jumps that compare a register with itself. The kernel
 * decides them only from the value's bounds, then refines the one register
 * through two pointers to it (regs_refine_cond_op), so each narrowing sees
 * the previous one: on the taken edge of "if r4 s> r4", r4 in [0, 0xffff]
 * becomes [1, 0xfffe]. Linked scalars are synchronised only if they were
 * collected (live) before the jump. */

/* may_goto (BPF_JMP | BPF_JCOND) as raw bytes, see may_goto.c. */
#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

char _license[] SEC("license") = "GPL";

/* The taken edge of "r4 s> r4" has r4 >= 1, so "r4 == 0" is never true
 * there and the bad read is dead code. */
// vercheck: accept
SEC("socket")
__naked int fr_same_reg_sgt(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r4 = r0;"
	"r4 &= 0xffff;"
	"if r4 s> r4 goto l0_%=;"
	"r0 = 0;"
	"exit;"
"l0_%=:"
	"if r4 != 0 goto l1_%=;"
	"r0 = *(u64 *)(r4 + 0);"
"l1_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* "r4 > r4" with r4 in [0, 1]: the taken edge leaves r4 = 1. */
// vercheck: accept
SEC("socket")
__naked int fr_same_reg_gt_bit(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r4 = r0;"
	"r4 &= 1;"
	"if r4 > r4 goto l0_%=;"
	"r0 = 0;"
	"exit;"
"l0_%=:"
	"if r4 == 1 goto l1_%=;"
	"r0 = *(u64 *)(r4 + 0);"
"l1_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* The 32-bit form narrows the subregister the same way. */
// vercheck: accept
SEC("socket")
__naked int fr_same_reg_w_lt(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r4 = r0;"
	"r4 &= 0xffff;"
	"if w4 < w4 goto l0_%=;"
	"r0 = 0;"
	"exit;"
"l0_%=:"
	"if r4 != 0xffff goto l1_%=;"
	"r0 = *(u64 *)(r4 + 0);"
"l1_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* The other edge of "r4 s> r4" keeps r4 as it was: 0 is still possible. */
// vercheck: reject "R4 invalid mem access 'scalar'"
SEC("socket")
__naked int fr_same_reg_sgt_fallthrough(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r4 = r0;"
	"r4 &= 0xffff;"
	"if r4 s> r4 goto l0_%=;"
	"if r4 != 0 goto l0_%=;"
	"r0 = *(u64 *)(r4 + 0);"
"l0_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* A generated program with two may_goto loops, the inner one nested: the
 * state on the taken edge of "if r4 s> r4" decides which loop iterations
 * the checkpoints cover, so insn_processed follows the kernel only with the
 * refinement above. */
// vercheck: accept
SEC("xdp")
__naked int fr_same_reg_loops(void)
{
	asm volatile (
	"r8 = r1;"
	"r6 = *(u32 *)(r1 +0);"
	"r7 = *(u32 *)(r1 +4);"
	"r0 = r6;"
	"r0 += 16;"
	"if r0 > r7 goto +38;"
	"*(u64 *)(r10 -8) = 0;"
	"*(u64 *)(r10 -16) = 0;"
	"*(u64 *)(r10 -24) = 0;"
	"r2 = 1;"
	"r3 = 2;"
	"r4 = 0;"
	"r5 = 2;"
	"r9 = 0;"
	"r0 = 0;"
	"r1 = 0;"
	MAY_GOTO(8)
	"r1 += 1;"
	"if r1 > 0x6 goto +6;"
	"r9 = r0;"
	"r0 = r10;"
	"r0 += r5;"
	"r4 = *(u64 *)(r10 -8);"
	"r9 = 1;"
	"goto -9;"
	"w2 += 1;"
	"r1 = 0;"
	MAY_GOTO(16)
	"r1 += 1;"
	"if r1 > 0x5 goto +14;"
	"r2 = *(u32 *)(r6 +2);"
	"if r4 s> r4 goto +9;"
	"r9 = *(u64 *)(r10 -16);"
	"r4 = *(u16 *)(r6 +3);"
	MAY_GOTO(6)
	"r5 = r10;"
	"r5 += -8;"
	"r0 = r10;"
	"r0 += r2;"
	"r3 = r0;"
	"goto -9;"
	"*(u64 *)(r10 -32) = r3;"
	"r3 = *(u16 *)(r6 +6);"
	"goto -17;"
	"r0 = 2;"
	"exit;"
	::: __clobber_all);
}
