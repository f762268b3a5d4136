#include "progs.h"

/* A NULL passed to a global function's nullable pointer argument is marked
 * precise on kernels with stablefix.NullArgPrecise, as a helper's is: the
 * level-2 logs show the backtrack before "Func#1 ... is global". */

__noinline __weak int l12_gnp_read(int *p)
{
	return p ? *p : 0;
}

// vercheck: accept
SEC("tc")
__naked int l12_global_null_arg(void)
{
	asm volatile(
		"r6 = r1;"
		"r1 = 0;"
		"call l12_gnp_read;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
