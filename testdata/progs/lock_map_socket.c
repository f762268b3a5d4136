#include "progs.h"

struct counted {
	struct bpf_spin_lock guard;
	__u64 hits;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct counted);
} guarded_hits SEC(".maps");

/*
 * The map compatibility check runs when the program names the map, before
 * any instruction is simulated: socket filters may not use a map whose
 * value holds a bpf_spin_lock, even without ever taking the lock.
 */
// vercheck: reject "socket filter progs cannot use bpf_spin_lock yet"
SEC("socket")
int socket_names_lock_map(struct __sk_buff *skb)
{
	__u32 key = skb->len & 1;
	struct counted *c = bpf_map_lookup_elem(&guarded_hits, &key);

	return c ? 1 : 0;
}

/* The same map is fine in a TC program. */
// vercheck: accept
SEC("tc")
int tc_names_lock_map(struct __sk_buff *skb)
{
	__u32 key = skb->len & 1;
	struct counted *c = bpf_map_lookup_elem(&guarded_hits, &key);

	if (!c)
		return 0;
	bpf_spin_lock(&c->guard);
	c->hits++;
	bpf_spin_unlock(&c->guard);
	return 0;
}

char _license[] SEC("license") = "GPL";
