// The socket lookup helpers take a tuple of size zero (their size
// argument is ARG_CONST_SIZE_OR_ZERO since 6.11: __bpf_skc_lookup refuses a
// wrong size at run time).
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: accept
SEC("tc")
int sd_sk_lookup_tcp_zero(struct __sk_buff *skb)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;

	sk = bpf_sk_lookup_tcp(skb, &t, 0, -1, 0);
	if (sk)
		bpf_sk_release(sk);
	return 0;
}

// vercheck: accept
SEC("tc")
int sd_sk_lookup_udp_zero(struct __sk_buff *skb)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;

	sk = bpf_sk_lookup_udp(skb, &t, 0, -1, 0);
	if (sk)
		bpf_sk_release(sk);
	return 0;
}

// vercheck: accept
SEC("tc")
int sd_skc_lookup_tcp_zero(struct __sk_buff *skb)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;

	sk = bpf_skc_lookup_tcp(skb, &t, 0, -1, 0);
	if (sk)
		bpf_sk_release(sk);
	return 0;
}
