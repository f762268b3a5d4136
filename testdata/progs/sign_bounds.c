#include "progs.h"

/* Bounds facts of the 6.18 stable kernels that the selftests exercise. Each
 * accepted program writes the frame pointer on a path the kernel proves dead,
 * so a weaker bounds model rejects it with "frame pointer is read only". */

/* The subregister's unsigned range [0x7fffff10, 0x8000000f] crosses the
 * 32-bit sign boundary. Past "w1 s> 0x8000000f" the signed range is
 * [0x80000010, S32_MAX], which meets the unsigned range only in its
 * non-negative part, so w1 <= 0x7fffffff and the write is dead. */
// vercheck: accept
SEC("socket")
__naked int subreg_sign_cross(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"w1 = w0;"
		"w1 &= 0xff;"
		"w1 += 0x7fffff10;"
		"if w1 s> 0x8000000f goto 1f;"
		"r0 = 0;"
		"exit;"
		"1:"
		"if w1 <= 0x7fffffff goto 2f;"
		"r10 = 0;"
		"2:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* "<<= 32" then "s>>= 32" keeps a subregister range that reaches below
 * zero: [-100, 155] survives both shifts. */
// vercheck: accept
SEC("socket")
__naked int lsh32_negative(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r0 &= 0xff;"
		"r0 -= 100;"
		"r0 <<= 32;"
		"r0 s>>= 32;"
		"if r0 s>= -100 goto 1f;"
		"r10 = 0;"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* A privileged loader may sign-extend or truncate a pointer: the result is
 * an unknown scalar (zero-extended for the 32-bit move). */
// vercheck: accept
SEC("socket")
__naked int ptr_sext_priv(void)
{
	asm volatile(
		"r2 = (s16)r10;"
		"w3 = w1;"
		"r4 = 0xffffffff ll;"
		"if r3 <= r4 goto 1f;"
		"r10 = 0;"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* ... but the scalar is no pointer any more. */
// vercheck: reject "R2 invalid mem access 'scalar'"
SEC("socket")
__naked int ptr_trunc_deref(void)
{
	asm volatile(
		"w2 = w1;"
		"r0 = *(u32 *)(r2 + 0);"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
