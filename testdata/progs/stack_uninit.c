#include "progs.h"

/* Reads a stack slot that nothing has written. An unprivileged load is
 * rejected with "invalid read from stack", but the oracle loads as root, and
 * a privileged verifier allows uninitialised stack reads (the slot reads as
 * an unknown scalar). See stack_iter_read.c for the rejected form. */
// vercheck: accept
SEC("socket")
__naked int stack_uninit(void)
{
	asm volatile(
		"r0 = *(u64 *)(r10 - 8);"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
