#include "progs.h"

/* A real loop (unrolling disabled) with a constant trip count: the verifier
 * simulates every iteration until the exit branch is taken. */
// vercheck: accept
SEC("socket")
int bounded_loop(struct __sk_buff *skb)
{
	__u32 sum = skb->len;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < 16; i++) {
		sum = sum * 31 + i;
		barrier_var(sum);
	}
	return sum & 1;
}

char _license[] SEC("license") = "GPL";
