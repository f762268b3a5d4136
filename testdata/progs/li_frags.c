// BPF_F_XDP_HAS_FRAGS ("xdp.frags" sections) tells the kernel the program
// copes with multi-buffer packets. The 6.18 verifier checks nothing with
// it: the same program is accepted with and without it, frag-aware helpers
// included; the flag matters when the program is attached or tail-called.
#include "progs.h"

char _license[] SEC("license") = "GPL";

static __always_inline int li_frags_body(struct xdp_md *ctx)
{
	__u8 buf[4] = {};

	if (bpf_xdp_get_buff_len(ctx) < 64)
		return XDP_PASS;
	if (bpf_xdp_load_bytes(ctx, 60, buf, sizeof(buf)))
		return XDP_DROP;
	return buf[0] ? XDP_PASS : XDP_DROP;
}

// vercheck: accept
SEC("xdp.frags")
int li_frags_has_frags(struct xdp_md *ctx)
{
	return li_frags_body(ctx);
}

// vercheck: accept
SEC("xdp")
int li_frags_no_frags(struct xdp_md *ctx)
{
	return li_frags_body(ctx);
}

// vercheck: accept
SEC("xdp.frags/devmap")
int li_frags_devmap(struct xdp_md *ctx)
{
	return li_frags_body(ctx);
}
