#include "progs.h"
char _license[] SEC("license") = "GPL";

/* A conditional jump comparing a scalar with a pointer refines nothing,
 * but check_cond_jmp_op still runs sync_linked_regs for the scalar
 * operand: the scalars linked to it take its state, id included. After
 * "r0 = r2; r0 += 0" that makes r2 "id=1+0", and r2's next copy takes a
 * fresh id (assign_scalar_id_before_mov drops a BPF_ADD_CONST id), so a
 * later bound on r0 says nothing of the copy. vercheck synced only when
 * both operands were scalars, kept r2 linked and bounded the copy: a false
 * accept, found as a log-only difference by the fuzz run of seed
 * 20263501 (a mutant of verifier_direct_packet_access.c). */

#define READ_STACK_AT_R4						\
	"if r0 > 7 goto l2_%=;"						\
	"r6 = 0;"							\
	"*(u64 *)(r10 - 8) = r6;"					\
	"r5 = r10;"							\
	"r5 += -8;"							\
	"r5 += r4;"							\
	"r0 = *(u8 *)(r5 + 0);"						\
"l2_%=:"								\
	"r0 = 0;"							\
	"exit;"

/* the scalar is the destination, pkt_end the source */
// vercheck: reject "invalid unbounded variable-offset read from stack R5"
SEC("tc")
__naked int s35_sync_dst_vs_pkt_end(void)
{
	asm volatile(
	"r2 = *(u32 *)(r1 + 0);"
	"r3 = *(u32 *)(r1 + 80);"
	"r0 = r2;"
	"r0 += 0;"
	"if r0 > r3 goto l1_%=;"
"l1_%=:"
	"r4 = r2;"
	READ_STACK_AT_R4
	::: __clobber_all);
}

/* the scalar is the source, pkt_end the destination */
// vercheck: reject "invalid unbounded variable-offset read from stack R5"
SEC("tc")
__naked int s35_sync_src_vs_pkt_end(void)
{
	asm volatile(
	"r2 = *(u32 *)(r1 + 0);"
	"r3 = *(u32 *)(r1 + 80);"
	"r0 = r2;"
	"r0 += 0;"
	"if r3 > r0 goto l1_%=;"
"l1_%=:"
	"r4 = r2;"
	READ_STACK_AT_R4
	::: __clobber_all);
}

/* compared with the frame pointer; the copy is a spill and a fill */
// vercheck: reject "invalid unbounded variable-offset read from stack R5"
SEC("socket")
__naked int s35_sync_vs_fp_spill(void)
{
	asm volatile(
	"r2 = *(u32 *)(r1 + 0);"
	"r0 = r2;"
	"r0 += 0;"
	"if r0 != r10 goto l1_%=;"
"l1_%=:"
	"*(u64 *)(r10 - 16) = r2;"
	"r4 = *(u64 *)(r10 - 16);"
	READ_STACK_AT_R4
	::: __clobber_all);
}

/* a plain link (no constant added): r2 keeps its id, the copy stays
 * linked to r0 and is bounded with it */
// vercheck: accept
SEC("tc")
__naked int s35_sync_plain_link(void)
{
	asm volatile(
	"r2 = *(u32 *)(r1 + 0);"
	"r3 = *(u32 *)(r1 + 80);"
	"r0 = r2;"
	"if r0 > r3 goto l1_%=;"
"l1_%=:"
	"r4 = r2;"
	READ_STACK_AT_R4
	::: __clobber_all);
}

/* r0 = r2 + 4: r2 is re-derived from r0 through the delta and keeps its
 * own id, so the copy stays linked */
// vercheck: accept
SEC("tc")
__naked int s35_sync_delta_link(void)
{
	asm volatile(
	"r2 = *(u32 *)(r1 + 0);"
	"r3 = *(u32 *)(r1 + 80);"
	"r0 = r2;"
	"r0 += 4;"
	"if r0 > r3 goto l1_%=;"
"l1_%=:"
	"r4 = r2;"
	"if r0 > 11 goto l2_%=;"
	"if r0 < 4 goto l2_%=;"
	"r6 = 0;"
	"*(u64 *)(r10 - 8) = r6;"
	"r5 = r10;"
	"r5 += -8;"
	"r5 += r4;"
	"r0 = *(u8 *)(r5 + 0);"
"l2_%=:"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}
