// A failed LD_ABS/LD_IND inside a subprogram returns 0 from that
// subprogram at run time: the caller must be checked for a zero result too.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// Reads skb byte 12 with LD_ABS (encoded by hand: opcode 0x30, imm 12)
// and returns 7 when the load succeeds.
__attribute__((noinline, used)) __naked static int load_byte_sub(void)
{
	asm volatile (
	"r6 = r1;"
	".8byte 0x0000000c00000030;"
	"r0 = 7;"
	"exit;"
	::: __clobber_all);
}

// vercheck: reject "R8 !read_ok"
SEC("socket")
__naked int ld_abs_sub_zero_path(void)
{
	asm volatile (
	"call load_byte_sub;"
	"if r0 == 7 goto 1f;"
	"r0 = r8;"
	"1:"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int ld_abs_sub_both_paths(void)
{
	asm volatile (
	"call load_byte_sub;"
	"r8 = 1;"
	"if r0 == 7 goto 1f;"
	"r0 = r8;"
	"1:"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}
