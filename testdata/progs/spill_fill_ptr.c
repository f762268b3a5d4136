#include "progs.h"

/* Spills the context pointer to the stack, clobbers the register, fills it
 * back and dereferences it: the pointer type survives the round trip. */
// vercheck: accept
SEC("socket")
__naked int spill_fill_ptr(void)
{
	asm volatile(
		"*(u64 *)(r10 - 8) = r1;"
		"r1 = 0;"
		"r1 = *(u64 *)(r10 - 8);"
		"r0 = *(u32 *)(r1 + %[len_off]);"
		"exit;"
		:
		: __imm_const(len_off, __builtin_offsetof(struct __sk_buff, len))
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
