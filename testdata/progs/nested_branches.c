#include "progs.h"

/* Branches inside branches on unknown values. */
// vercheck: accept
SEC("socket")
int nested_branches(struct __sk_buff *skb)
{
	__u32 len = skb->len;
	__u32 proto = skb->protocol;
	__u32 mark = skb->mark;
	int r = 0;

	if (len > 100) {
		if (proto == bpf_htons(0x0800)) {
			if (mark & 1)
				r = 1;
			else
				r = 2;
		} else if (proto == bpf_htons(0x86dd)) {
			r = 3;
		}
	} else {
		if (mark > 7)
			r = 4;
	}
	barrier_var(r);
	return r;
}

char _license[] SEC("license") = "GPL";
