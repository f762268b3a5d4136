#include "progs.h"

/* A congestion-control program's struct sock argument is a struct
 * tcp_sock (bpf_tcp_ca_is_valid_access promotes it): reads are bounded by
 * the tcp_sock and messages name it. */

char _license[] SEC("license") = "GPL";

struct sock;

struct tcp_congestion_ops {
	void (*init)(struct sock *sk);
	__u32 (*ssthresh)(struct sock *sk);
	char name[16];
};

/* Past the end of any socket: the kernel names the tcp_sock. */
// vercheck: reject "access beyond struct tcp_sock at off 32767 size 4"
SEC("struct_ops/tcp_sock_far")
__naked void tcp_sock_far(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 0);"
		"r0 = *(u32 *)(r2 + 32767);"
		"exit;"
		::: __clobber_all);
}

/* A u32 member may return any value. */
// vercheck: accept
SEC("struct_ops/tcp_sock_ssthresh")
__naked __u32 tcp_sock_ssthresh(void)
{
	asm volatile(
		"r0 = 2;"
		"exit;"
		::: __clobber_all);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops tcp_sock_ops = {
	.init = (void *)tcp_sock_far,
	.ssthresh = (void *)tcp_sock_ssthresh,
	.name = "tcp_sock_ops",
};
