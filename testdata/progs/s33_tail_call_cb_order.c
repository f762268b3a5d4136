#include "progs.h"

/* Where the stack walk (check_max_stack_depth_subprog) refuses a tail call
 * in a callback: when the walk of a function that may reach a tail call
 * ends (tail_call_reachable: its own, or one of a callee's), after the
 * checks of the functions it calls and after the depth check at its own
 * entry. So a callback with a tail call entered under 512 bytes of stack
 * is "tail_calls are not allowed when call stack of previous frames is 512
 * bytes", and one whose callee overflows the stack is "combined stack
 * size"; vercheck said "cannot tail call within callback" at the
 * callback's entry for both. Found by the fuzz seed 20263301 run (a
 * mutant of s32_loop_cb_tail with a store at fp-512, session 33). */
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} s33_jmp SEC(".maps");

/* Callbacks whose tail call no path reaches (the walk looks at the code,
 * not at the paths). */
static __naked __attribute__((noinline, used)) int s33_cb_tail(void)
{
	asm volatile ("r0 = 0; if r0 != 0 goto 1f; exit;"
"1:"		      "r2 = %[s33_jmp] ll; r3 = 0; call %[bpf_tail_call]; r0 = 0; exit;"
		      :: __imm(bpf_tail_call), __imm_addr(s33_jmp) : __clobber_all);
}

static __naked __attribute__((noinline, used)) int s33_deep(void)
{
	asm volatile ("r1 = 0; *(u64 *)(r10 - 512) = r1; r0 = 0; exit;" ::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int s33_cb_tail_deep(void)
{
	asm volatile ("call s33_deep; r0 = 0; if r0 != 0 goto 1f; exit;"
"1:"		      "r2 = %[s33_jmp] ll; r3 = 0; call %[bpf_tail_call]; r0 = 0; exit;"
		      :: __imm(bpf_tail_call), __imm_addr(s33_jmp) : __clobber_all);
}

// vercheck: reject "tail_calls are not allowed when call stack of previous frames is 512 bytes. Too large"
SEC("tc")
__naked int s33_deep_main_cb_tail(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 512) = r1;"
	"r1 = 1;"
	"r2 = s33_cb_tail ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}

// vercheck: reject "combined stack size of 3 calls is"
SEC("tc")
__naked int s33_cb_tail_callee_deep(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = 1;"
	"r2 = s33_cb_tail_deep ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}

// vercheck: reject "cannot tail call within callback"
SEC("tc")
__naked int s33_shallow_main_cb_tail(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = 1;"
	"r2 = s33_cb_tail ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}
