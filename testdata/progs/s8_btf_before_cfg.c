#include "progs.h"

/* check_btf_info runs before check_cfg: a subprogram declared void that
 * uses a legacy packet load is refused by check_btf_func before the
 * unreachable instruction of the main program is found. */

char _license[] SEC("license") = "GPL";

static __naked __attribute__((noinline, used)) void s8_void_ld_abs(void)
{
	asm volatile (
	"r0 = *(u8 *)skb[0];"
	"exit;"
	::: __clobber_all);
}

// vercheck: reject "LD_ABS is only allowed in functions that return 'int'."
SEC("socket")
__naked int s8_btf_before_cfg(void)
{
	asm volatile (
	"r6 = r1;"
	"call s8_void_ld_abs;"
	"r0 = 0;"
	"exit;"
	"r0 = 1;"
	"exit;"
	::: __clobber_all);
}
