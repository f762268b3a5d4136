#include "progs.h"

/* Packet kfuncs: bpf_dynptr_from_skb_meta builds a dynptr over the skb's
 * metadata area, whose slices, like packet slices, die when the packet
 * may move; bpf_xdp_pull_data moves the packet and so invalidates every
 * packet pointer, in the caller of a subprogram that calls it too. */

extern int bpf_dynptr_from_skb_meta(struct __sk_buff *skb, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
extern int bpf_xdp_pull_data(struct xdp_md *xdp, __u32 len) __ksym;

// vercheck: accept
SEC("tc")
int k11_skb_meta_read(struct __sk_buff *skb)
{
	struct bpf_dynptr meta;
	__u8 *p;

	bpf_dynptr_from_skb_meta(skb, 0, &meta);
	p = bpf_dynptr_slice(&meta, 0, 0, 4);
	if (!p)
		return 0;
	return p[3];
}

// vercheck: reject "invalid mem access 'scalar'"
SEC("tc")
int k11_skb_meta_stale(struct __sk_buff *skb)
{
	struct bpf_dynptr meta;
	__u8 *p;

	bpf_dynptr_from_skb_meta(skb, 0, &meta);
	p = bpf_dynptr_slice(&meta, 0, 0, 4);
	if (!p)
		return 0;
	bpf_skb_pull_data(skb, 0);
	return p[3];
}

// vercheck: reject "calling kernel function bpf_dynptr_from_skb_meta is not allowed"
SEC("socket")
int k11_skb_meta_socket(struct __sk_buff *skb)
{
	struct bpf_dynptr meta;

	bpf_dynptr_from_skb_meta(skb, 0, &meta);
	return 0;
}

// vercheck: accept
SEC("xdp.frags")
int k11_xdp_pull_reload(struct xdp_md *xdp)
{
	void *data, *end;

	if (bpf_xdp_pull_data(xdp, 64))
		return XDP_DROP;
	data = (void *)(long)xdp->data;
	end = (void *)(long)xdp->data_end;
	if (data + 64 > end)
		return XDP_DROP;
	return ((__u8 *)data)[63] ? XDP_PASS : XDP_DROP;
}

// vercheck: reject "invalid mem access 'scalar'"
SEC("xdp.frags")
int k11_xdp_pull_stale(struct xdp_md *xdp)
{
	__u8 *data = (void *)(long)xdp->data;
	void *end = (void *)(long)xdp->data_end;

	if ((void *)(data + 1) > end)
		return XDP_DROP;
	bpf_xdp_pull_data(xdp, 64);
	return data[0] ? XDP_PASS : XDP_DROP;
}

__attribute__((noinline)) int k11_pull_global(struct xdp_md *xdp)
{
	return bpf_xdp_pull_data(xdp, 32);
}

// vercheck: reject "invalid mem access 'scalar'"
SEC("xdp.frags")
int k11_xdp_pull_in_global(struct xdp_md *xdp)
{
	__u8 *data = (void *)(long)xdp->data;
	void *end = (void *)(long)xdp->data_end;

	if ((void *)(data + 1) > end)
		return XDP_DROP;
	k11_pull_global(xdp);
	return data[0] ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
