#include "progs.h"

/* Overwrites the frame pointer R10, which is read only. */
// vercheck: reject "frame pointer is read only"
SEC("socket")
__naked int fp_write(void)
{
	asm volatile(
		"r10 = 0;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
