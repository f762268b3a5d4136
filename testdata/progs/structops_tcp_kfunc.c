#include "progs.h"

/* The kernel's own congestion-control functions are kfuncs of struct_ops
 * programs (net/ipv4/bpf_tcp_ca.c registers Reno's, tcp_cubic.c CUBIC's);
 * no other program type may call them. */

char _license[] SEC("license") = "GPL";

struct sock {
	int sk_err;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	char name[16];
};

extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;

// vercheck: accept
SEC("struct_ops/tcpk_ssthresh")
__u32 tcpk_ssthresh(unsigned long long *ctx)
{
	return tcp_reno_ssthresh((struct sock *)ctx[0]);
}

// vercheck: accept
SEC("struct_ops/tcpk_cong_avoid")
void tcpk_cong_avoid(unsigned long long *ctx)
{
	cubictcp_cong_avoid((struct sock *)ctx[0], ctx[1], ctx[2]);
}

/* An acknowledged sequence number is no socket. */
// vercheck: reject "arg#0 pointer type STRUCT sock must point to scalar, or struct with scalar"
SEC("struct_ops/tcpk_scalar")
void tcpk_scalar(unsigned long long *ctx)
{
	tcp_reno_ssthresh((struct sock *)ctx[1]);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcpk_ops = {
	.ssthresh = (void *)tcpk_ssthresh,
	.cong_avoid = (void *)tcpk_cong_avoid,
	.name = "tcpk_ops",
};

SEC(".struct_ops")
struct tcp_congestion_ops tcpk_ops_scalar = {
	.cong_avoid = (void *)tcpk_scalar,
	.name = "tcpk_ops_scalar",
};

/* A tc program has no such kfunc. */
// vercheck: reject "calling kernel function tcp_reno_ssthresh is not allowed"
SEC("tc")
int tcpk_from_tc(struct __sk_buff *skb)
{
	return tcp_reno_ssthresh((struct sock *)skb->sk);
}
