#include "progs.h"

/* Division and modulo by a register that may be zero: BPF defines the
 * result, so the verifier accepts it. */
// vercheck: accept
SEC("socket")
__naked int div_reg(void)
{
	asm volatile(
		"r6 = r1;"
		"call %[bpf_get_prandom_u32];"
		"r7 = r0;"
		"r0 = *(u32 *)(r6 + %[len_off]);"
		"r0 /= r7;"
		"w0 %%= w7;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32),
		  __imm_const(len_off, __builtin_offsetof(struct __sk_buff, len))
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
