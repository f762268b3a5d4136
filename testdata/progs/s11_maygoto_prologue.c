/* A function holding a may_goto gets, from do_misc_fixups, a prologue
 * that initialises its loop budget: two BPF_ST (the timed may_goto of
 * x86-64) patched in before its first instruction, which moves behind
 * them with its relative offset unchanged. A first instruction that calls
 * a later function still reaches it (both moved); one that calls an
 * earlier function points two instructions past its start, which the
 * kernel's jit_subprogs refuses with a verifier bug unless another
 * function starts there (verifier/testdata/kernelfault/maygoto_first_call.c
 * has the refused ones). */
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

__attribute__((naked, noinline, used)) static int s11_a_two(void)
{
	asm volatile("r0 = 0; exit;" ::: "r0");
}

__attribute__((naked, noinline, used)) static int s11_b_next(void)
{
	asm volatile("r0 = 1; exit;" ::: "r0");
}

/* Calls the function after it first, then loops on may_goto. */
__attribute__((naked, noinline, used)) static int s11_c_loop_calls_later(void)
{
	asm volatile(
		"call s11_d_after;"
	"l0_%=:"
		MAY_GOTO(1)
		"goto l0_%=;"
		"exit;"
		::: "r0", "r1", "r2", "r3", "r4", "r5");
}

__attribute__((naked, noinline, used)) static int s11_d_after(void)
{
	asm volatile("r0 = 2; exit;" ::: "r0");
}

/* Calls a two-instruction function placed before it: the moved call
 * lands on the start of the function after that one, which the kernel
 * takes (and calls). */
__attribute__((naked, noinline, used)) static int s11_z_loop_calls_two(void)
{
	asm volatile(
		"call s11_a_two;"
	"l0_%=:"
		MAY_GOTO(1)
		"goto l0_%=;"
		"exit;"
		::: "r0", "r1", "r2", "r3", "r4", "r5");
}

/* Calls an earlier function first, but its may_goto +0 is no jump:
 * opt_remove_nops deletes it, and no prologue moves the call. */
__attribute__((naked, noinline, used)) static int s11_z_nop_calls_two(void)
{
	asm volatile(
		"call s11_a_two;"
		MAY_GOTO(0)
		"exit;"
		::: "r0", "r1", "r2", "r3", "r4", "r5");
}

// vercheck: accept
SEC("socket")
__naked int s11_prologue_call_later(void)
{
	asm volatile(
		"call s11_c_loop_calls_later;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s11_prologue_call_lands_on_next(void)
{
	asm volatile(
		"call s11_a_two;"
		"call s11_b_next;"
		"call s11_z_loop_calls_two;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s11_prologue_nop_may_goto(void)
{
	asm volatile(
		"call s11_a_two;"
		"call s11_z_nop_calls_two;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}
