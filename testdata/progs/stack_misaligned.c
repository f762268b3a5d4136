#include "progs.h"

/* A four-byte store two bytes off an eight-byte slot boundary. Stack
 * accesses must be aligned even where the CPU does not care; the message
 * prints the pointer's known variable offset as a plain number. */
// vercheck: reject "misaligned stack access off 0+0+-6 size 4"
SEC("socket")
__naked int stack_misaligned(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 6) = r1;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
