#include "progs.h"

/* A tail call in a subprogram that runs as a callback or under one
 * (check_max_stack_depth's walk): "cannot tail call within callback"
 * (EINVAL), reached or not; a subprogram of the main program's with a tail
 * call beside a bpf_loop callback without one is fine. Found by probing
 * load-time checks by hand (session 32): vercheck accepted. */
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} s32_jmp SEC(".maps");

/* A bpf_loop callback whose tail call no path reaches. */
static __naked __attribute__((noinline, used)) int s32_cb_tail(void)
{
	asm volatile (
	"r0 = 0;"
	"if r0 != 0 goto 1f;"
	"exit;"
"1:"	"r2 = %[s32_jmp] ll;"
	"r3 = 0;"
	"call %[bpf_tail_call];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_tail_call), __imm_addr(s32_jmp) : __clobber_all);
}

static __naked __attribute__((noinline, used)) int s32_tsub(void)
{
	asm volatile ("r2 = %[s32_jmp] ll; r3 = 0; call %[bpf_tail_call]; r0 = 0; exit;"
		      :: __imm(bpf_tail_call), __imm_addr(s32_jmp) : __clobber_all);
}

static __naked __attribute__((noinline, used)) int s32_plain_cb(void)
{
	asm volatile ("r0 = 0; exit;" ::: "r0");
}

// vercheck: reject "cannot tail call within callback"
SEC("tc")
__naked int s32_loop_cb_tail(void)
{
	asm volatile (
	"r1 = 1;"
	"r2 = s32_cb_tail ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s32_tail_sub_then_loop(void)
{
	asm volatile ("r6 = r1; call s32_tsub; r1 = 1; r2 = s32_plain_cb ll; r3 = 0; r4 = 0;"
		      "call %[bpf_loop]; r0 = 0; exit;" :: __imm(bpf_loop) : __clobber_all);
}
