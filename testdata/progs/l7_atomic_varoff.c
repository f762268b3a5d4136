#include "progs.h"

/* An atomic operation first reads its location for no register
 * (check_atomic_rmw), and check_stack_read refuses a read that fills no
 * register through a variable-offset stack pointer: every atomic on such
 * a pointer is refused, the fetching ones too (they read once more, into
 * their load register, which alone would pass). */

/* An exchange. */
// vercheck: reject "variable offset stack pointer cannot be passed into helper function"
SEC("tc")
__naked int l7_atomic_xchg_var_stack(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"*(u64 *)(r10 - 16) = r1;"
		"call %[bpf_get_prandom_u32];"
		"r0 &= 8;"
		"r2 = r10;"
		"r2 += -16;"
		"r2 += r0;"
		"r3 = 1;"
		"r3 = xchg_64(r2 + 0, r3);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

// vercheck: reject "variable offset stack pointer cannot be passed into helper function"
SEC("tc")
__naked int l7_atomic_add_var_stack(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"*(u64 *)(r10 - 16) = r1;"
		"call %[bpf_get_prandom_u32];"
		"r0 &= 8;"
		"r2 = r10;"
		"r2 += -16;"
		"r2 += r0;"
		"r3 = 1;"
		"lock *(u64 *)(r2 + 0) += r3;"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

// vercheck: reject "variable offset stack pointer cannot be passed into helper function"
SEC("tc")
__naked int l7_atomic_fetch_add_var_stack(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"*(u64 *)(r10 - 16) = r1;"
		"call %[bpf_get_prandom_u32];"
		"r0 &= 8;"
		"r2 = r10;"
		"r2 += -16;"
		"r2 += r0;"
		"r3 = 1;"
		"r3 = atomic_fetch_add((u64 *)(r2 + 0), r3);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
