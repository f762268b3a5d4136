#include "progs.h"
#include <linux/if_ether.h>

/* Reads the Ethernet type without comparing against data_end first. The
 * kernel logs "invalid access to packet, off=12 size=1, ..." and then the
 * decisive line below. */
// vercheck: reject "R1 offset is outside of the packet"
SEC("xdp")
int xdp_no_bounds(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;

	if (eth->h_proto == bpf_htons(ETH_P_IP))
		return XDP_DROP;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
