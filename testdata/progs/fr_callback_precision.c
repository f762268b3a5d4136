#include "progs.h"

/* Precision backtracking out of a bpf_loop callback. Walking back from the
 * callback's first instruction over the bpf_loop call leaves the callback's
 * frame (backtrack_insn's sync-callback case): r1-r5 are dropped, and what
 * is still wanted of the caller's stack is looked for in the caller. Before,
 * vercheck fell back to making every scalar of every ancestor precise, so a
 * counter in the caller's stack became precise and the callback's
 * iterations never converged. */

char _license[] SEC("license") = "GPL";

static __naked __attribute__((noinline, used)) int fr_cb_count_and_index(void)
{
	asm volatile (
	"r1 = *(u64 *)(r2 + 0);"
	"r1 += 1;"
	"*(u64 *)(r2 + 0) = r1;"
	"r3 = *(u64 *)(r2 + 8);"
	"r4 = r10;"
	"r4 += -16;"
	"r4 += r3;"
	"r1 = 0;"
	"*(u8 *)(r4 + 0) = r1;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The index the callback reads from its caller's stack must be precise,
 * the counter next to it need not: the loop converges at once. */
// vercheck: accept
SEC("socket")
__naked int fr_cb_counter_converges(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 16) = r1;"
	"r1 = 3;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = 1000000;"
	"r2 = fr_cb_count_and_index ll;"
	"r3 = r10;"
	"r3 += -16;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}

static __naked __attribute__((noinline, used)) int fr_cb_precise_count(void)
{
	asm volatile (
	"r1 = *(u64 *)(r2 + 0);"
	"r1 += 1;"
	"*(u64 *)(r2 + 0) = r1;"
	"r3 = r10;"
	"r3 += -64;"
	"r1 &= 63;"
	"r3 += r1;"
	"r1 = 0;"
	"*(u8 *)(r3 + 0) = r1;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* Here the counter itself indexes a buffer, so it is precise and every
 * iteration is new, up to bpf_loop's count; the walk back into the caller
 * finds where the counter was stored. */
// vercheck: accept
SEC("socket")
__naked int fr_cb_counter_precise(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = 1000;"
	"r2 = fr_cb_precise_count ll;"
	"r3 = r10;"
	"r3 += -8;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}
