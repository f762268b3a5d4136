#include "progs.h"

/* A may_goto loop whose second round widens the imprecise scalars that
 * changed since the first (widen_imprecise_scalars against the loop's
 * earlier checkpoint). w2 = (s16)w3 copies r3, linked to r4 with a delta
 * of 1 after "w3 += 1"; the sign extension may change the value, so the
 * copy's id is cleared, and the running 6.18.44 kernel clears the delta
 * with it: r2 is the same as in the first round and is not widened (26
 * instructions). vercheck kept the delta, widened r2 and walked 36 (found
 * by vercheck-mutate, seed 20261210, mutant 18796.1). */

__u32 mg_vals[2];

// vercheck: accept
SEC("socket")
__naked int l10_maygoto_sext(void)
{
	asm volatile (
	"w0 = 0;"
	"r1 = %[mg_vals] ll;"
	"r1 += 4;"
	"r3 = *(u32 *)(r1 - 4);"
	"l0_%=: w2 = (s16)w3;"
	"may_goto l1_%=;"
	"r4 = *(u32 *)(r1 + 0);"
	"w3 = w4;"
	"w0 += w3;"
	".8byte 0x00000000000000e5;"
	"w3 += 1;"
	"if w2 s< 999 goto l0_%=;"
	"l1_%=: exit;"
	:
	: __imm_addr(mg_vals)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
