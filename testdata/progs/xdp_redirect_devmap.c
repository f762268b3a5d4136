#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} ports SEC(".maps");

/* Redirects through a device map, passing the frame when the slot is empty. */
// vercheck: accept
SEC("xdp")
int xdp_redirect_devmap(struct xdp_md *ctx)
{
	return bpf_redirect_map(&ports, ctx->ingress_ifindex & 7, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
