#include "progs.h"

/* Networking kfuncs of 6.18 registered for one program type each:
 * bpf_xdp_get_xfrm_state/bpf_xdp_xfrm_state_release (net/xfrm/
 * xfrm_state_bpf.c, XDP: an acquired IPsec state that may be NULL) and
 * bpf_sk_assign_tcp_reqsk (net/core/filter.c, TC classifiers only). */

/* The kfuncs' types by their kernel names (cilium/ebpf checks the
 * prototypes against the kernel's); only their pointers are used. */
struct xfrm_state {
	int state;
};

struct sock {
	int sock;
};

struct bpf_xfrm_state_opts {
	__s32 error;
	__s32 netns_id;
	__u32 mark;
	__u32 daddr[4];
	__u32 spi;
	__u8 proto;
	__u16 family;
};

struct bpf_tcp_req_attrs {
	__u32 rcv_tsval;
	__u32 rcv_tsecr;
	__u16 mss;
	__u8 rcv_wscale, snd_wscale, ecn_ok, wscale_ok, sack_ok, tstamp_ok, usec_ts_ok;
	__u8 reserved[3];
};

extern struct xfrm_state *bpf_xdp_get_xfrm_state(struct xdp_md *ctx, struct bpf_xfrm_state_opts *opts, __u32 opts__sz) __ksym;
extern void bpf_xdp_xfrm_state_release(struct xfrm_state *x) __ksym;
extern int bpf_sk_assign_tcp_reqsk(struct __sk_buff *skb, struct sock *sk, struct bpf_tcp_req_attrs *attrs, int attrs__sz) __ksym;

/* Look a state up and release it. */
// vercheck: accept
SEC("xdp")
int p7_xfrm_lookup(struct xdp_md *ctx)
{
	struct bpf_xfrm_state_opts opts = { .netns_id = -1, .spi = 1, .proto = 50, .family = 2 };
	struct xfrm_state *x = bpf_xdp_get_xfrm_state(ctx, &opts, sizeof(opts));

	if (!x)
		return opts.error ? XDP_DROP : XDP_PASS;
	bpf_xdp_xfrm_state_release(x);
	return XDP_PASS;
}

/* The state is a reference the program must release. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("xdp")
int p7_xfrm_leak(struct xdp_md *ctx)
{
	struct bpf_xfrm_state_opts opts = { .netns_id = -1, .family = 2 };
	struct xfrm_state *x = bpf_xdp_get_xfrm_state(ctx, &opts, sizeof(opts));

	return x ? XDP_DROP : XDP_PASS;
}

/* XDP only. */
// vercheck: reject "calling kernel function bpf_xdp_get_xfrm_state is not allowed"
SEC("tc")
int p7_xfrm_in_tc(struct __sk_buff *skb)
{
	struct bpf_xfrm_state_opts opts = { .netns_id = -1, .family = 2 };
	struct xfrm_state *x = bpf_xdp_get_xfrm_state((struct xdp_md *)skb, &opts, sizeof(opts));

	if (x)
		bpf_xdp_xfrm_state_release(x);
	return 0;
}

/* TC classifiers only. */
// vercheck: reject "calling kernel function bpf_sk_assign_tcp_reqsk is not allowed"
SEC("xdp")
int p7_reqsk_in_xdp(struct xdp_md *ctx)
{
	struct bpf_tcp_req_attrs attrs = {};

	return bpf_sk_assign_tcp_reqsk((struct __sk_buff *)ctx, 0, &attrs, sizeof(attrs));
}

/* The socket is a trusted argument: NULL is refused. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg1"
SEC("tc")
int p7_reqsk_null_sk(struct __sk_buff *skb)
{
	struct bpf_tcp_req_attrs attrs = { .mss = 1460 };

	return bpf_sk_assign_tcp_reqsk(skb, 0, &attrs, sizeof(attrs));
}

char _license[] SEC("license") = "GPL";
