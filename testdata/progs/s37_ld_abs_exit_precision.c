#include "progs.h"
char _license[] SEC("license") = "GPL";

/* A legacy packet load (LD_ABS/LD_IND) in a subprogram has a hidden exit:
 * a failed load returns 0 to the caller (check_ld_abs explores it since
 * the stable fix "Fix ld_{abs,ind} failure path analysis in subprogs").
 * Precision backtracking walks that edge back from the caller's return
 * site into the load, and must enter the subprogram's frame there, as over
 * an exit ("backtrack_insn(): Handle ld_{abs,ind} subprog exit edge", in
 * this kernel): vercheck stayed in the caller's frame and then reported
 * the kernel's own "subprog exit from frame 0" at the call (unsupported,
 * as a kernel fault), where the running kernel accepts. A caller's r0
 * wanted at that edge came from the load: the walk falls back to marking
 * every scalar precise. Level-2 logs equal the kernel's. */

static __naked __attribute__((noinline, used)) int s37_ldabs_sub(void)
{
	asm volatile (
	"r6 = r1;"
	"r7 = r1;"
	"r0 = *(u32 *)skb[0];"
	"exit;"
	::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s37_ldabs_sub_r0(void)
{
	asm volatile (
	"r6 = r1;"
	"r0 = *(u32 *)skb[0];"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s37_ldind_sub_r0(void)
{
	asm volatile (
	"r6 = r1;"
	"r3 = 0;"
	"r0 = *(u16 *)skb[r3];"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s37_ldabs_r7(void)
{
	asm volatile (
	"r7 = -8;"
	"call s37_ldabs_sub;"
	"r1 = r10;"
	"r1 += r7;"
	"*(u64 *)(r1 + 0) = 0;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s37_ldabs_r0(void)
{
	asm volatile (
	"call s37_ldabs_sub_r0;"
	"r1 = r10;"
	"r1 += -8;"
	"r1 += r0;"
	"*(u64 *)(r1 + 0) = 0;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s37_ldabs_r0_ind(void)
{
	asm volatile (
	"r8 = -8;"
	"call s37_ldind_sub_r0;"
	"r1 = r10;"
	"r1 += r8;"
	"r1 += r0;"
	"*(u64 *)(r1 + 0) = 0;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}
