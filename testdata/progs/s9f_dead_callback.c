#include "progs.h"

/* The address of a callback no path calls: after verification the kernel
 * removes the callback's code as dead (opt_remove_dead_code) and leaves
 * the address where it was. jit_subprogs fails the load (EFAULT, "No
 * program to jit") when that is no function's start and more than one
 * function is left; these two it accepts (vercheck refuses the others as
 * ErrKernelFault, see verifier/testdata/kernelfault/dead_callback.c). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} s9f_arr SEC(".maps");

static __attribute__((naked, noinline, used)) int s9f_dead(void)
{
	asm volatile("r0 = 1; exit;" ::: __clobber_all);
}

static __attribute__((naked, noinline, used)) int s9f_live(void)
{
	asm volatile("r0 = 0; r0 = 0; r0 = 0; exit;" ::: __clobber_all);
}

/* The dead callback comes first: once it is removed, its address points
 * at the start of the live one. */
// vercheck: accept
SEC("socket")
__naked int s9f_dead_callback_first(void)
{
	asm volatile(
		"r6 = s9f_dead ll;"
		"r1 = %[s9f_arr] ll;"
		"r2 = s9f_live ll;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_for_each_map_elem];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s9f_arr), __imm(bpf_for_each_map_elem)
		: __clobber_all);
}

/* Every callback is dead: one function is left, and jit_subprogs looks
 * nothing up. */
// vercheck: accept
SEC("socket")
__naked int s9f_dead_callback_only(void)
{
	asm volatile(
		"r2 = s9f_dead ll;"
		"r0 = 0;"
		"exit;"
		:
		:
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
