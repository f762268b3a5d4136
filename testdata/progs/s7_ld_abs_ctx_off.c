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

/* Callbacks get R6 uninitialised: check_ld_abs reads it first. */
static __attribute__((noinline)) __naked int s7_ld_abs_cb_uninit(void)
{
	asm volatile(
		"r0 = *(u8 *)skb[0];"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "R6 !read_ok"
SEC("socket")
__naked int s7_ld_abs_in_callback_r6_uninit(void)
{
	asm volatile(
		"r6 = r1;"
		"r1 = 1;"
		"r2 = %[s7_ld_abs_cb_uninit] ll;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"r0 = 0;"
		"exit;"
		:: __imm_addr(s7_ld_abs_cb_uninit), __imm(bpf_loop) : __clobber_all);
}

/* A callback's R6 set from its index is no context. */
static __attribute__((noinline)) __naked int s7_ld_abs_cb_index(void)
{
	asm volatile(
		"r6 = r1;"
		"r0 = *(u8 *)skb[0];"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "at the time of BPF_LD_ABS|IND R6 != pointer to skb"
SEC("socket")
__naked int s7_ld_abs_in_callback_r6_index(void)
{
	asm volatile(
		"r6 = r1;"
		"r1 = 1;"
		"r2 = %[s7_ld_abs_cb_index] ll;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"r0 = 0;"
		"exit;"
		:: __imm_addr(s7_ld_abs_cb_index), __imm(bpf_loop) : __clobber_all);
}
