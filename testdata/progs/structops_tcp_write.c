#include "progs.h"

/* Stores of a congestion-control program to its socket: the kernel's
 * bpf_tcp_ca_btf_struct_access allows the pacing rate and status, the
 * private area icsk_ca_priv (anywhere inside it), the pending ACK flags and
 * a few tcp_sock fields (window, its counter and stamp, the slow-start
 * threshold, the ECN flags, app_limited), each from its first byte and not
 * past its end; anything else is refused. The structs are CO-RE
 * relocated, so the offsets follow the running kernel's layout. The ops
 * live in a legacy ".struct_ops" section, which libbpf still loads. */

char _license[] SEC("license") = "GPL";

struct sock {
	unsigned long sk_pacing_rate;
	__u32 sk_pacing_status;
	__u8 sk_pacing_shift;
} __attribute__((preserve_access_index));

struct inet_sock {
	struct sock sk;
} __attribute__((preserve_access_index));

struct inet_connection_sock {
	struct inet_sock icsk_inet;
	struct {
		__u8 pending;
	} icsk_ack;
	__u64 icsk_ca_priv[13];
} __attribute__((preserve_access_index));

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u32 snd_cwnd;
	__u32 snd_cwnd_clamp;
	__u32 snd_ssthresh;
	__u32 app_limited;
	__u8 ecn_flags;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	void (*init)(struct sock *sk);
	__u64 (*get_info)(struct sock *sk, __u32 ext, int *attr, void *info);
	char name[16];
};

#define SOCK(ctx) ((struct tcp_sock *)(ctx)[0])

// vercheck: accept
SEC("struct_ops/tcpw_allowed")
void tcpw_allowed(unsigned long long *ctx)
{
	struct tcp_sock *tp = SOCK(ctx);

	tp->inet_conn.icsk_inet.sk.sk_pacing_rate = 1;
	tp->inet_conn.icsk_inet.sk.sk_pacing_status = 1;
	tp->inet_conn.icsk_ack.pending = 1;
	tp->inet_conn.icsk_ca_priv[0] = 1;
	tp->inet_conn.icsk_ca_priv[12] = 1;
	tp->snd_cwnd = 1;
	tp->snd_ssthresh = 1;
	tp->app_limited = 1;
	tp->ecn_flags = 1;
}

/* The pacing shift is read-only. */
// vercheck: reject "no write support to tcp_sock at off"
SEC("struct_ops/tcpw_shift")
void tcpw_shift(unsigned long long *ctx)
{
	SOCK(ctx)->inet_conn.icsk_inet.sk.sk_pacing_shift = 1;
}

/* So is the window clamp. */
// vercheck: reject "no write support to tcp_sock at off"
SEC("struct_ops/tcpw_clamp")
void tcpw_clamp(unsigned long long *ctx)
{
	SOCK(ctx)->snd_cwnd_clamp = 1;
}

/* Eight bytes from the start of the 4-byte window run past it. */
// vercheck: reject "with size 8 beyond the member of tcp_sock ended at"
SEC("struct_ops/tcpw_wide")
void tcpw_wide(unsigned long long *ctx)
{
	*(volatile __u64 *)&SOCK(ctx)->snd_cwnd = 1;
}

/* Eight bytes from the last word of the private area run past it. */
// vercheck: reject "with size 8 beyond the member of tcp_sock ended at"
SEC("struct_ops/tcpw_priv_over")
void tcpw_priv_over(unsigned long long *ctx)
{
	*(volatile __u64 *)((char *)&SOCK(ctx)->inet_conn.icsk_ca_priv[12] + 4) = 1;
}

/* get_info is a member the kernel refuses to attach to
 * (bpf_tcp_ca_check_member), before it verifies anything. */
// vercheck: reject "attach to unsupported member get_info of struct tcp_congestion_ops"
SEC("struct_ops/tcpw_get_info")
__u64 tcpw_get_info(unsigned long long *ctx)
{
	return 0;
}

SEC(".struct_ops")
struct tcp_congestion_ops tcpw_ops_get_info = { .get_info = (void *)tcpw_get_info, .name = "tcpw_get_info" };
SEC(".struct_ops")
struct tcp_congestion_ops tcpw_ops_allowed = { .init = (void *)tcpw_allowed, .name = "tcpw_allowed" };
SEC(".struct_ops")
struct tcp_congestion_ops tcpw_ops_shift = { .init = (void *)tcpw_shift, .name = "tcpw_shift" };
SEC(".struct_ops")
struct tcp_congestion_ops tcpw_ops_clamp = { .init = (void *)tcpw_clamp, .name = "tcpw_clamp" };
SEC(".struct_ops")
struct tcp_congestion_ops tcpw_ops_wide = { .init = (void *)tcpw_wide, .name = "tcpw_wide" };
SEC(".struct_ops")
struct tcp_congestion_ops tcpw_ops_priv_over = { .init = (void *)tcpw_priv_over, .name = "tcpw_priv_over" };
