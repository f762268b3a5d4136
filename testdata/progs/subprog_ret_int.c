#include "progs.h"

/* A subprogram that may end the whole program (a tail call, a legacy
 * packet load) must be declared in BTF to return an integer: the kernel
 * refuses a void one before it verifies anything. */

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} next_prog SEC(".maps");

static __attribute__((noinline)) void jump_void(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &next_prog, 1);
}

static __attribute__((noinline)) int jump_int(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &next_prog, 1);
	return skb->len;
}

// vercheck: reject "tail_call is only allowed in functions that return 'int'."
SEC("tc")
int tail_call_in_void_subprog(struct __sk_buff *skb)
{
	jump_void(skb);
	return 0;
}

// vercheck: accept
SEC("tc")
int tail_call_in_int_subprog(struct __sk_buff *skb)
{
	return jump_int(skb) > 1;
}

/* A subprogram that only tries a tail call: if the call succeeds the
 * packet may have been replaced, so the caller's packet pointers die when
 * the subprogram returns. */
__attribute__((used)) static __naked __noinline int try_jump(void)
{
	asm volatile(
		"r2 = %[next_prog] ll;"
		"r3 = 0;"
		"call %[bpf_tail_call];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(next_prog), __imm(bpf_tail_call)
		: __clobber_all);
}

// vercheck: reject "R6 invalid mem access 'scalar'"
SEC("tc")
__naked int pkt_after_subprog_tail_call(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + %[data]);"
		"r3 = *(u32 *)(r1 + %[data_end]);"
		"r4 = r2;"
		"r4 += 4;"
		"if r4 > r3 goto 1f;"
		"r6 = r2;"
		"call try_jump;"
		"r0 = *(u8 *)(r6 + 0);"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
