// LD_ABS and LD_IND read the packet through the skb in R6 as it is
// (bpf_gen_ld_abs): check_ld_abs refuses a context pointer moved off its
// start (check_ptr_off_reg), by a constant or not at all.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: reject "dereference of modified ctx ptr R6 off=2 disallowed"
SEC("socket")
__naked int s7_ld_abs_ctx_moved(void)
{
	asm volatile(
		"r6 = r1;"
		"r6 += 2;"
		"r0 = *(u8 *)skb[12];"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "dereference of modified ctx ptr R6 off=4 disallowed"
SEC("tc")
__naked int s7_ld_ind_ctx_moved(void)
{
	asm volatile(
		"r6 = r1;"
		"r6 += 4;"
		"r7 = 2;"
		/* r0 = *(u16 *)skb[r7 + 12] */
		".byte 0x48, 0x70, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s7_ld_abs_ctx_moved_back(void)
{
	asm volatile(
		"r6 = r1;"
		"r6 += 2;"
		"r6 += -2;"
		"r0 = *(u8 *)skb[12];"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}
