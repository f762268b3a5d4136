#include "progs.h"

/* The offset checks of a static function's context and dynptr arguments
 * (btf_check_func_arg_match: check_func_arg_reg_off, then
 * process_dynptr_func): a moved context pointer is "dereference of
 * modified ctx ptr", a negative one "negative offset", and a stack
 * pointer a dynptr cannot start at logs "cannot pass in dynptr at an
 * offset=N" before "Expected an initialized dynptr". The first mismatch
 * is logged and makes the function unreliable; the call goes on. Found
 * from level-2 log differences of mutation fuzzing. */

char _license[] SEC("license") = "GPL";

static __noinline __attribute__((used)) int s30_ctx_arg(struct __sk_buff *skb)
{
	return 0;
}

static __noinline __attribute__((used)) int s30_dyn_arg(struct __sk_buff *skb, struct bpf_dynptr *p)
{
	return 0;
}

/* The context moved forward. */
// vercheck: accept
SEC("tc")
__naked int s30_static_ctx_moved(void)
{
	asm volatile("r1 += 8; call s30_ctx_arg; r0 = 0; exit;" ::: __clobber_all);
}

/* The context moved backward. */
// vercheck: accept
SEC("tc")
__naked int s30_static_ctx_negative(void)
{
	asm volatile("r1 += -8; call s30_ctx_arg; r0 = 0; exit;" ::: __clobber_all);
}

/* The frame pointer itself: no dynptr starts at offset 0. */
// vercheck: accept
SEC("tc")
__naked int s30_static_dynptr_fp(void)
{
	asm volatile("r2 = r10; call s30_dyn_arg; r0 = 0; exit;" ::: __clobber_all);
}

/* A stack offset off the slot grid. */
// vercheck: accept
SEC("tc")
__naked int s30_static_dynptr_unaligned(void)
{
	asm volatile("r2 = r10; r2 += -12; call s30_dyn_arg; r0 = 0; exit;" ::: __clobber_all);
}

/* A variable stack offset. */
// vercheck: accept
SEC("tc")
__naked int s30_static_dynptr_var(void)
{
	asm volatile("r6 = r1; call %[bpf_get_prandom_u32]; r0 &= 8; r2 = r10; r2 += r0; r2 += -24; r1 = r6;"
		"call s30_dyn_arg; r0 = 0; exit;"
		:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* No context at all: a helper call left r1 uninitialised, whose var_off
 * is unknown ("variable ? access"). */
// vercheck: accept
SEC("tc")
__naked int s30_static_ctx_uninit(void)
{
	asm volatile("call %[bpf_get_prandom_u32]; call s30_ctx_arg; r0 = 0; exit;"
		:: __imm(bpf_get_prandom_u32) : __clobber_all);
}
