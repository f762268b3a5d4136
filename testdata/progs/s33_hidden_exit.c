#include "progs.h"

/* Instructions that may leave a subprogram without reaching its exit, a
 * tail call that succeeds and an LD_ABS/LD_IND whose load fails, lead to
 * the subprogram's last exit as well in the graph the stack liveness walks
 * (stablefix hidden-exit-liveness, check_cfg's visit_abnormal_return_insn).
 * A callee's store into its caller's stack after one of them is then not
 * a must-write of the call: the caller's slot stays live, and the path
 * whose fp-8 holds -1024 is not pruned against the one holding -8, and
 * reads fp-1024 where the callee left early. vercheck pruned it and
 * accepted. Found through the 7.3 selftests (verifier_live_stack.c)
 * against the live kernel (session 33). */
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} s33_progs SEC(".maps");

static __naked __attribute__((noinline, used)) int s33_tail_then_store(void)
{
	asm volatile (
	"r6 = r2;"
	"r2 = %[s33_progs] ll;"
	"r3 = 0;"
	"call %[bpf_tail_call];"
	"*(u64 *)(r6 + 0) = -16;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_tail_call), __imm_addr(s33_progs) : __clobber_all);
}

/* Stores the context into the caller's fp-8 after a load from the
 * packet. */
static __naked __attribute__((noinline, used)) int s33_ldabs_then_store_ctx(void)
{
	asm volatile (
	"r7 = r2;"
	"r6 = r1;"
	"r0 = *(u8 *)skb[0];"
	"*(u64 *)(r7 + 0) = r6;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

#define S33_CALLER(callee)						\
	asm volatile (							\
	"r6 = r1;"							\
	"*(u64 *)(r10 - 8) = -8;"					\
	"call %[bpf_get_prandom_u32];"					\
	"if r0 != 42 goto 1f;"						\
	"goto 2f;"							\
"1:"	"*(u64 *)(r10 - 8) = -1024;"					\
"2:"	"r1 = r6;"							\
	"r2 = r10;"							\
	"r2 += -8;"							\
	"call " #callee ";"						\
	"r1 = *(u64 *)(r10 - 8);"					\
	"r2 = r10;"							\
	"r2 += r1;"							\
	"r0 = *(u64 *)(r2 + 0);"					\
	"r0 = 0;"							\
	"exit;"								\
	:: __imm(bpf_get_prandom_u32) : __clobber_all)

// vercheck: reject "invalid read from stack R2 off=-1024 size=8"
// vercheck: accept without hidden-exit-liveness
SEC("socket")
__naked int s33_tail_call_hidden_exit(void)
{
	S33_CALLER(s33_tail_then_store);
}

/* The first path spills the context at fp-8, the second a number; the
 * callee stores the context there after an LD_ABS, which ends it when the
 * packet is too short: the second path then reads through a number (a
 * slot's type, not a value: no precision is involved). */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without hidden-exit-liveness
SEC("socket")
__naked int s33_ld_abs_hidden_exit(void)
{
	asm volatile (
	"r6 = r1;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_prandom_u32];"
	"if r0 != 42 goto 1f;"
	"goto 2f;"
"1:"	"*(u64 *)(r10 - 8) = 5;"
"2:"	"r1 = r6;"
	"r2 = r10;"
	"r2 += -8;"
	"call s33_ldabs_then_store_ctx;"
	"r1 = *(u64 *)(r10 - 8);"
	"r0 = *(u32 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}
