#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

/* Inserts the packet length into a hash map, then deletes another key. */
// vercheck: accept
SEC("socket")
int map_update_delete(struct __sk_buff *skb)
{
	__u32 key = skb->len;
	__u64 val = skb->protocol;

	bpf_map_update_elem(&seen, &key, &val, BPF_ANY);
	key ^= 1;
	bpf_map_delete_elem(&seen, &key);
	return 0;
}

char _license[] SEC("license") = "GPL";
