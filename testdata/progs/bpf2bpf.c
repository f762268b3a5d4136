#include "progs.h"

/* A static function kept out of line: a bpf-to-bpf call with its own frame. */
static __noinline int mix(__u32 a, __u32 b)
{
	__u32 buf[4] = { a, b, a ^ b, a + b };

	barrier_var(buf[2]);
	return (buf[0] * 7 + buf[1] + buf[2] + buf[3]) & 0xff;
}

// vercheck: accept
SEC("socket")
int bpf2bpf(struct __sk_buff *skb)
{
	return mix(skb->len, skb->protocol);
}

char _license[] SEC("license") = "GPL";
