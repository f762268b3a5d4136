#include "progs.h"

/* A helper's BTF pointer argument moved back before its struct: the
 * kernel checks the type first (btf_struct_ids_match walks the struct at
 * the register's offset, an int compared with the struct's u32 size and
 * member offsets) and only then the offset. A negative offset whose end
 * wraps past the size is "access beyond struct tcp_sock at off
 * 4294967288 size 1" (printed unsigned); one that ends at 0 finds no field
 * ("doesn't have field at offset -1"). Found from a level-2 log
 * difference of mutation fuzzing. */

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

#define SETSOCKOPT_AT(delta)				\
	asm volatile(					\
		"r1 = *(u64 *)(r1 + 0);"		\
		"r1 += " #delta ";"			\
		"r2 = 0;"				\
		"*(u64 *)(r10 - 8) = r2;"		\
		"r2 = 6;"				\
		"r3 = 1;"				\
		"r4 = r10;"				\
		"r4 += -8;"				\
		"r5 = 4;"				\
		"call %[bpf_setsockopt];"		\
		"exit;"					\
		:: __imm(bpf_setsockopt)		\
		: __clobber_all)

/* Eight bytes back: the end wraps past the struct's size. */
// vercheck: reject "R1 is of type tcp_sock but sock_common is expected"
SEC("struct_ops/s30_neg8")
__naked void s30_neg8(void)
{
	SETSOCKOPT_AT(-8);
}

/* One byte back: the one-byte walk ends at 0, before every member. */
// vercheck: reject "R1 is of type tcp_sock but sock_common is expected"
SEC("struct_ops/s30_neg1")
__naked void s30_neg1(void)
{
	SETSOCKOPT_AT(-1);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops s30_ops_a = {
	.cwnd_event = (void *)s30_neg8,
	.name = "s30_ops_a",
};

SEC(".struct_ops.link")
struct tcp_congestion_ops s30_ops_b = {
	.cwnd_event = (void *)s30_neg1,
	.name = "s30_ops_b",
};
