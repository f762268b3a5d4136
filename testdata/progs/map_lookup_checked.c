#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* The lookup result is compared with NULL before it is dereferenced. */
// vercheck: accept
SEC("socket")
int map_lookup_checked(struct __sk_buff *skb)
{
	__u32 key = skb->len & 3;
	__u64 *v = bpf_map_lookup_elem(&counters, &key);

	if (!v)
		return 0;
	__sync_fetch_and_add(v, 1);
	return 1;
}

char _license[] SEC("license") = "GPL";
