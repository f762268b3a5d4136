#include "progs.h"

/* struct_ops programs implementing members of tcp_congestion_ops: the
 * context is the member's argument list (trusted pointers), read-only. */

char _license[] SEC("license") = "GPL";

struct sock;

struct tcp_congestion_ops {
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	void (*set_state)(struct sock *sk, __u8 new_state);
	__u32 (*undo_cwnd)(struct sock *sk);
	void (*cwnd_event)(struct sock *sk, int ev);
	char name[16];
};

/* Reads a word of the socket: the argument is a trusted pointer. */
// vercheck: accept
SEC("struct_ops/btfprog_ops_init")
__naked void btfprog_ops_init(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 0);"
		"r0 = *(u32 *)(r2 + 0);"
		"exit;"
		::: __clobber_all);
}

/* A u32 member may return any value. */
// vercheck: accept
SEC("struct_ops/btfprog_ops_ssthresh")
__naked __u32 btfprog_ops_ssthresh(void)
{
	asm volatile(
		"r0 = -1;"
		"exit;"
		::: __clobber_all);
}

/* cong_avoid has three arguments: slot 3 does not exist. */
// vercheck: reject "invalid bpf_context access off=24 size=8"
SEC("struct_ops/btfprog_ops_cong_avoid")
__naked void btfprog_ops_cong_avoid(void)
{
	asm volatile(
		"r0 = *(u64 *)(r1 + 24);"
		"exit;"
		::: __clobber_all);
}

/* The u8 state is a number in its slot: reading it narrowly is fine, and
 * it may not be dereferenced. */
// vercheck: reject "R2 invalid mem access 'scalar'"
SEC("struct_ops/btfprog_ops_set_state")
__naked void btfprog_ops_set_state(void)
{
	asm volatile(
		"r2 = *(u8 *)(r1 + 8);"
		"r0 = *(u8 *)(r2 + 0);"
		"exit;"
		::: __clobber_all);
}

/* The context is read-only. */
// vercheck: reject "invalid bpf_context access off=0 size=8"
SEC("struct_ops/btfprog_ops_undo_cwnd")
__naked __u32 btfprog_ops_undo_cwnd(void)
{
	asm volatile(
		"r2 = 0;"
		"*(u64 *)(r1 + 0) = r2;"
		"r0 = 1;"
		"exit;"
		::: __clobber_all);
}

/* release may not change socket options. */
// vercheck: reject "program of this type cannot use helper bpf_setsockopt#49"
SEC("struct_ops/btfprog_ops_release")
__naked void btfprog_ops_release(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_setsockopt];"
		"exit;"
		:: __imm(bpf_setsockopt)
		: __clobber_all);
}

/* Other members may change socket options on the socket they get. */
// vercheck: accept
SEC("struct_ops/btfprog_ops_cwnd_event")
__naked void btfprog_ops_cwnd_event(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"r2 = 0;"
		"*(u64 *)(r10 - 8) = r2;"
		"r2 = 6;"
		"r3 = 1;"
		"r4 = r10;"
		"r4 += -8;"
		"r5 = 4;"
		"call %[bpf_setsockopt];"
		"exit;"
		:: __imm(bpf_setsockopt)
		: __clobber_all);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops btfprog_ops = {
	.init = (void *)btfprog_ops_init,
	.release = (void *)btfprog_ops_release,
	.ssthresh = (void *)btfprog_ops_ssthresh,
	.cong_avoid = (void *)btfprog_ops_cong_avoid,
	.set_state = (void *)btfprog_ops_set_state,
	.undo_cwnd = (void *)btfprog_ops_undo_cwnd,
	.cwnd_event = (void *)btfprog_ops_cwnd_event,
	.name = "btfprog_ops",
};
