/* BTF map definitions naming NUMA node 1, one struct defining both a map and
 * the inner map of a map-in-map (libbpf reads numa_node; see numanode.go).
 * Built with: clang-19 -O2 -g -target bpfel -c numa_node.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct inner_numa {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
	__uint(map_flags, BPF_F_NUMA_NODE);
	__uint(numa_node, 1);
} numa_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner_numa);
} numa_outer SEC(".maps");

SEC("xdp")
int lookup(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&numa_hash, &key);

	return v && *v ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
