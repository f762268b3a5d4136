#include "progs.h"

/* Copies that lose their link to a register linked with a delta (r3 = r4;
 * r3 += 1) also lose the delta, in the running 6.18.44 kernel
 * (clear_scalar_id): a 32-bit mov of a register wider than 32 bits, and a
 * narrowing fill. With a stale delta a copy compares unequal to the same
 * value without one, and may_goto's widening (widen_imprecise_scalars
 * against the loop's earlier round) forgets its bounds: vercheck walked
 * 35 instructions of l10_mov32_delta where the kernel walks 25. */

__u64 mv_vals[2];

// vercheck: accept
SEC("socket")
__naked int l10_mov32_delta(void)
{
	asm volatile (
	"w0 = 0;"
	"r1 = %[mv_vals] ll;"
	"r3 = *(u64 *)(r1 + 0);"
	"l0_%=: w2 = w3;"
	"may_goto l1_%=;"
	"r4 = *(u64 *)(r1 + 8);"
	"r3 = r4;"
	"w0 += w3;"
	".8byte 0x00000000000000e5;"
	"r3 += 1;"
	"if w2 s< 999 goto l0_%=;"
	"l1_%=: exit;"
	:
	: __imm_addr(mv_vals)
	: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int l10_fill_delta(void)
{
	asm volatile (
	"w0 = 0;"
	"r1 = %[mv_vals] ll;"
	"r3 = *(u64 *)(r1 + 0);"
	"l0_%=: *(u64 *)(r10 - 8) = r3;"
	"r2 = *(u32 *)(r10 - 8);"
	"may_goto l1_%=;"
	"r4 = *(u64 *)(r1 + 8);"
	"r3 = r4;"
	"w0 += w3;"
	".8byte 0x00000000000000e5;"
	"r3 += 1;"
	"if w2 s< 999 goto l0_%=;"
	"l1_%=: exit;"
	:
	: __imm_addr(mv_vals)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
