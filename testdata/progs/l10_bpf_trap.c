#include "progs.h"

/* __bpf_trap, the kfunc clang calls where a program reads a variable it
 * never initialised: check_kfunc_call refuses it on any path that reaches
 * it (EFAULT), right after the program-type check; a call no path reaches
 * is left alone. vercheck said "unsupported: kfunc __bpf_trap" for both. */

extern void __bpf_trap(void) __ksym;

// vercheck: accept
SEC("socket")
__naked int l10_trap_dead(void)
{
	asm volatile(
		"r0 = 0;"
		"if r0 == 0 goto 1f;"
		"call %[__bpf_trap];"
		"1: exit;"
		:
		: __imm(__bpf_trap)
		: __clobber_all);
}

// vercheck: reject "unexpected __bpf_trap() due to uninitialized variable?"
SEC("socket")
__naked int l10_trap_live(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"if r0 == 0 goto 1f;"
		"call %[__bpf_trap];"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm(__bpf_trap), __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

int l10_trap_user(void *ctx)
{
	__bpf_trap();
	return 0;
}

char _license[] SEC("license") = "GPL";
