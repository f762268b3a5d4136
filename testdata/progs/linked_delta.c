// Linked scalars with a constant delta: a bounds check on one copy narrows
// the other. The Linux 6.18 stable series extended the links to subtraction,
// negative deltas and 32-bit adds (on a register whose upper half is zero),
// and stopped linking "r1 += r1".
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: accept
SEC("socket")
__naked int linked_sub_delta(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r0 &= 0xff;"
	"r1 = r0;"
	"r1 -= 4;"
	"if r1 > 4 goto 1f;"
	"r2 = r10;"
	"r2 += r0;"
	"r0 = *(u8 *)(r2 - 16);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int linked_add32_delta(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"w0 &= 0xff;"
	"w1 = w0;"
	"w1 += 4;"
	"if w1 > 8 goto 1f;"
	"r2 = r10;"
	"r2 += r0;"
	"r0 = *(u8 *)(r2 - 16);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

// vercheck: reject "invalid variable-offset read from stack R2"
SEC("socket")
__naked int linked_self_add_breaks(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r0 &= 0xff;"
	"r1 = r0;"
	"r1 += r1;"
	"if r1 > 8 goto 1f;"
	"r2 = r10;"
	"r2 += r0;"
	"r0 = *(u8 *)(r2 - 16);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}
