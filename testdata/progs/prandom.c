#include "progs.h"

/* Uses bpf_get_prandom_u32 to sample one packet in sixteen. */
// vercheck: accept
SEC("socket")
int prandom(struct __sk_buff *skb)
{
	if ((bpf_get_prandom_u32() & 15) == 0)
		return skb->len;
	return 0;
}

char _license[] SEC("license") = "GPL";
