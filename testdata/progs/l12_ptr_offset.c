#include "progs.h"

/* Pointer arithmetic whose result is out of bounds (check_reg_sane_offset
 * on the result): builds with stablefix.PtrOffsetMessage (this one's
 * check_reg_sane_offset_ptr) say "pkt pointer offset N is not allowed" for
 * every bound out of range; 6.18.0 names the minimum ("value N makes ...")
 * or its absence ("unbounded min value"). */

/* data - [0, 2^32-1]: the minimum is -(2^32-1). */
// vercheck: reject "pkt pointer offset -4294967295 is not allowed"
// vercheck: reject "value -4294967295 makes pkt pointer be out of bounds" without ptr-offset-message
SEC("xdp")
__naked int l12_pkt_sub_u32(void)
{
	asm volatile(
	"r9 = *(u32 *)(r1 + 0);"
	"call %[bpf_get_prandom_u32];"
	"w0 = w0;"
	"r9 -= r0;"
	"r0 = 0;"
	"exit;"
	: : __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* data - [0, 2^28) - [0, 2^63): the minimum overflows. */
// vercheck: reject "pkt pointer offset -9223372036854775808 is not allowed"
// vercheck: reject "math between pkt pointer and register with unbounded min value is not allowed" without ptr-offset-message
SEC("xdp")
__naked int l12_pkt_sub_overflow(void)
{
	asm volatile(
	"r9 = *(u32 *)(r1 + 0);"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 0xfffffff;"
	"r9 -= r0;"
	"call %[bpf_get_prandom_u32];"
	"r0 >>= 1;"
	"r9 -= r0;"
	"r0 = 0;"
	"exit;"
	: : __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* Offsets within bounds on both sides of the check: the fixed and the
 * variable part are checked apart, each below 2^29. */
// vercheck: accept
SEC("xdp")
__naked int l12_pkt_var_plus_const(void)
{
	asm volatile(
	"r9 = *(u32 *)(r1 + 0);"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 255;"
	"r0 += 0x10000000;"
	"r9 += r0;"
	"r9 += 0x10000000;"
	"r0 = 0;"
	"exit;"
	: : __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* Two constants: the fixed offset is out of range on either build. */
// vercheck: reject "pkt pointer offset 1073741822 is not allowed"
SEC("xdp")
__naked int l12_pkt_two_consts(void)
{
	asm volatile(
	"r9 = *(u32 *)(r1 + 0);"
	"r9 += 0x1fffffff;"
	"r9 += 0x1fffffff;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
