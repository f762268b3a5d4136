#include "progs.h"

/* bpf_loop's callback context given a packet pointer: check_func_arg
 * refuses a packet pointer to any helper without pkt_access before it
 * compares the register's type with the argument's. */

char _license[] SEC("license") = "GPL";

static __naked __attribute__((noinline, used)) int s8_loop_cb(void)
{
	asm volatile (
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: reject "helper access to the packet is not allowed"
SEC("xdp")
__naked int s8_loop_ctx_pkt(void)
{
	asm volatile (
	"r3 = *(u32 *)(r1 + 0);"
	"r1 = 4;"
	"r2 = s8_loop_cb ll;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}
