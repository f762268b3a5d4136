#include "progs.h"

/* NULL passed to a global function's memory argument tagged arg:nonnull
 * (stablefix.GlobalNonNullZero). This machine's kernel refuses a known-zero
 * scalar there as it refuses a maybe-NULL pointer (upstream 7.x's
 * btf_check_func_arg_match); a kernel without the fix lets it through
 * check_mem_reg, and the callee, verified once for a valid pointer, reads
 * through NULL. An untagged argument takes NULL on any kernel. */

char _license[] SEC("license") = "GPL";

#define __arg_nonnull __attribute__((btf_decl_tag("arg:nonnull")))

__noinline int nn_get(int *p __arg_nonnull)
{
	return *p;
}

__noinline int plain_get(int *p)
{
	return p ? *p : 0;
}

// vercheck: reject "Caller passes invalid args into func#1 ('nn_get')"
// vercheck: accept without global-nonnull-zero
SEC("socket")
__naked int nn_null(void)
{
	asm volatile (
	"r1 = 0;"
	"call nn_get;"
	"exit;"
	::: __clobber_all);
}

/* The zero is computed from a random number. */
// vercheck: reject "Caller passes invalid args into func#1 ('nn_get')"
// vercheck: accept without global-nonnull-zero
SEC("socket")
__naked int nn_null_chain(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r1 = r6;"
	"r1 &= 0;"
	"call nn_get;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int plain_null(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r1 = r6;"
	"r1 &= 0;"
	"call plain_get;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int nn_stack(void)
{
	asm volatile (
	"r1 = 3;"
	"*(u32 *)(r10 - 4) = r1;"
	"r1 = r10;"
	"r1 += -4;"
	"call nn_get;"
	"exit;"
	::: __clobber_all);
}
