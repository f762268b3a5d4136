#include "progs.h"

/* Calls bpf_ktime_get_ns and branches on the result. */
// vercheck: accept
SEC("socket")
int ktime(struct __sk_buff *skb)
{
	__u64 t = bpf_ktime_get_ns();

	if (t & 1)
		return 1;
	return 0;
}

char _license[] SEC("license") = "GPL";
