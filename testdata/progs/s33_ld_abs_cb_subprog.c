#include "progs.h"

/* An LD_ABS/LD_IND in a subprogram that a bpf_loop callback calls: a
 * failed load returns 0 from that subprogram to the callback, which the
 * 6.18 kernel takes (7.x refuses it in its stack walk). vercheck refused
 * any such load with a callback anywhere in the call chain ("cannot use
 * BPF_LD_[ABS|IND] within callback"), where only the callback's own frame
 * is refused. Found through the 7.3 selftests (verifier_ld_ind.c) against
 * the live kernel (session 33). */
char _license[] SEC("license") = "GPL";

static __naked __attribute__((noinline, used)) int s33_ldind_sub(void)
{
	asm volatile (
	"r6 = r1;"
	"r7 = 0;"
	"r0 = *(u32 *)skb[r7];"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The callback reads the context the caller stored at fp-8 and returns
 * what the subprogram returns. */
static __naked __attribute__((noinline, used)) int s33_ldind_cb(void)
{
	asm volatile (
	"r1 = *(u64 *)(r2 + 0);"
	"call s33_ldind_sub;"
	"exit;"
	::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s33_ld_ind_in_cb_subprog(void)
{
	asm volatile (
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = 1;"
	"r2 = s33_ldind_cb ll;"
	"r3 = r10;"
	"r3 += -8;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}
