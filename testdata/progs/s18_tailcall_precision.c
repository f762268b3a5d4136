#include "progs.h"

/* A bpf_tail_call made inside a subprogram returns to the caller when it
 * is taken (check_helper_call forks the path), so the next instruction of
 * that path is the caller's. The precision walk must then step back into
 * the subprogram's frame over the call, as over an exit (backtrack_insn's
 * BPF_FUNC_tail_call case). vercheck kept walking in the caller's frame
 * and reached the subprogram's call instruction with the caller's r7
 * still wanted: "verifier bug: static subprog unexpected regs", a
 * program the kernel accepts declined as one it faults on (found by
 * TestPacketInvalidationLiveKernel). */

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} s18_jmp SEC(".maps");

__attribute__((naked, noinline, used)) static int s18_tail_sub(void)
{
	asm volatile(
		"r2 = %[s18_jmp] ll;"
		"r3 = 0;"
		"call %[bpf_tail_call];"
		"r0 = 0;"
		"exit;"
		:: __imm_addr(s18_jmp), __imm(bpf_tail_call) : __clobber_all);
}

/* r7, set before the call, decides a branch after it: precise. */
// vercheck: accept
SEC("tc")
__naked int s18_tail_call_precise(void)
{
	asm volatile(
		"r7 = 0;"
		"call s18_tail_sub;"
		"if r7 < 2 goto 1f;"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The same value through a stack slot of the caller. */
// vercheck: accept
SEC("tc")
__naked int s18_tail_call_precise_stack(void)
{
	asm volatile(
		"r7 = 0;"
		"*(u64 *)(r10 - 8) = r7;"
		"call s18_tail_sub;"
		"r7 = *(u64 *)(r10 - 8);"
		"if r7 < 2 goto 1f;"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}
