#include "progs.h"

/* BTF map definitions that name a NUMA node, __uint(numa_node, N) with
 * BPF_F_NUMA_NODE, as the kernel's samples/bpf/map_perf_test.bpf.c writes
 * them: libbpf's parse_btf_map_def reads the field (the map's numa_node),
 * so the object opens, and so must it in vercheck's loader. The struct
 * defines both a map of its own and the inner map of a map-in-map. */

struct inner_numa {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
	__uint(map_flags, BPF_F_NUMA_NODE);
	__uint(numa_node, 0);
} numa_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner_numa);
} numa_outer SEC(".maps") = {
	.values = { &numa_hash },
};

/* Looks up a value of the NUMA-placed map. */
// vercheck: accept
SEC("socket")
int p7_numa_lookup(struct __sk_buff *skb)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&numa_hash, &key);

	return v ? *v : 0;
}

/* The inner map's values are 8 bytes long: reading 8 bytes at offset 8 is
 * out of bounds (invalid access to map value, value_size=8 off=8 size=8). */
// vercheck: reject "R0 min value is outside of the allowed memory range"
SEC("socket")
int p7_numa_inner_oob(struct __sk_buff *skb)
{
	__u32 key = 0;
	void *inner = bpf_map_lookup_elem(&numa_outer, &key);
	__u64 *v;

	if (!inner)
		return 0;
	v = bpf_map_lookup_elem(inner, &key);
	return v ? v[1] : 0;
}

char _license[] SEC("license") = "GPL";
