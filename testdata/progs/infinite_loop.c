#include "progs.h"

/* A loop whose condition is always true and whose state never changes: the
 * verifier finds the same state at the loop head twice and gives up at once. */
// vercheck: reject "infinite loop detected at insn 1"
SEC("socket")
__naked int infinite_loop(void)
{
	asm volatile(
		"r0 = 0;"
		"1:"
		"if r0 == 0 goto 1b;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
