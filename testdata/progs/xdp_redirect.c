#include "progs.h"

/* Redirects every frame to interface 1 with bpf_redirect. */
// vercheck: accept
SEC("xdp")
int xdp_redirect(struct xdp_md *ctx)
{
	return bpf_redirect(1, 0);
}

char _license[] SEC("license") = "GPL";
