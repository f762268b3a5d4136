#include "progs.h"

/* The x86-64 JIT gives the frames of tracepoint, raw_tp and perf_event
 * programs (and of tracing programs through a recursion-guarded
 * trampoline) a private stack when they are 64 bytes or more
 * (bpf_enable_priv_stack), and check_max_stack_depth then leaves those
 * frames out of the 512-byte sum of a call chain. But a bpf_tail_call
 * anywhere in the program, reached or not (check_subprogs sets
 * has_tail_call), turns the private stack off for every function: the
 * frames count again. vercheck gave the private stack regardless and
 * accepted a 600-byte chain the kernel refuses: a false accept found by
 * sweeping call graphs against the kernel (TestCallGraphLiveKernel). */

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} s17_jmp SEC(".maps");

/* A 304-byte frame. */
__attribute__((naked, noinline, used)) static int s17_big_frame(void)
{
	asm volatile(
		"r0 = 0;"
		"*(u64 *)(r10 - 304) = r0;"
		"exit;"
		::: "r0");
}

/* 304 + 304 bytes on private stacks: each frame within 512. */
// vercheck: reject "combined stack size of 2 calls is 608. Too large"
// vercheck: accept without tp-no-priv-stack
SEC("tracepoint/syscalls/sys_enter_getpid")
__naked int s17_big_frames(void)
{
	asm volatile(
		"r0 = 0;"
		"*(u64 *)(r10 - 304) = r0;"
		"call s17_big_frame;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The same frames with a tail call: one stack, 608 bytes. */
// vercheck: reject "combined stack size of 2 calls is 608. Too large"
SEC("tracepoint/syscalls/sys_enter_getpid")
__naked int s17_big_frames_tail(void)
{
	asm volatile(
		"r6 = r1;"
		"r0 = 0;"
		"*(u64 *)(r10 - 304) = r0;"
		"call s17_big_frame;"
		"r1 = r6;"
		"r2 = %[s17_jmp] ll;"
		"r3 = 0;"
		"call %[bpf_tail_call];"
		"r0 = 0;"
		"exit;"
		:: __imm_addr(s17_jmp), __imm(bpf_tail_call) : __clobber_all);
}

/* A tail call no path reaches still counts. */
// vercheck: reject "combined stack size of 2 calls is 608. Too large"
SEC("raw_tp/sys_enter")
__naked int s17_big_frames_dead_tail(void)
{
	asm volatile(
		"r6 = r1;"
		"r0 = 0;"
		"*(u64 *)(r10 - 304) = r0;"
		"call s17_big_frame;"
		"r0 = 0;"
		"if r0 == 0 goto l0_%=;"
		"r1 = r6;"
		"r2 = %[s17_jmp] ll;"
		"r3 = 0;"
		"call %[bpf_tail_call];"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:: __imm_addr(s17_jmp), __imm(bpf_tail_call) : __clobber_all);
}
