#include "progs.h"

/* Dereferences a number as if it were a pointer. */
// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("socket")
__naked int scalar_deref(void)
{
	asm volatile(
		"r1 = 4096;"
		"r0 = *(u64 *)(r1 + 0);"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
