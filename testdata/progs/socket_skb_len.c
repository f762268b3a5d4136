#include "progs.h"

/* A socket filter that keeps as many bytes as the packet has. */
// vercheck: accept
SEC("socket")
int socket_skb_len(struct __sk_buff *skb)
{
	return skb->len;
}

char _license[] SEC("license") = "GPL";
