#include "progs.h"

/* Straight-line arithmetic on the context pointer's scalar fields: no branch,
 * so the verifier walks each instruction exactly once. */
// vercheck: accept
SEC("socket")
int straight_line(struct __sk_buff *skb)
{
	__u32 a = skb->len;
	__u32 b = skb->protocol;

	a = a * 3 + b;
	a ^= a >> 7;
	a -= b << 2;
	return a & 0xff;
}

char _license[] SEC("license") = "GPL";
