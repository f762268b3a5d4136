#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} jumps SEC(".maps");

/* Tail-calls into a program array slot and falls through when it is empty. */
// vercheck: accept
SEC("socket")
int tail_call(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &jumps, skb->len & 3);
	return 0;
}

char _license[] SEC("license") = "GPL";
