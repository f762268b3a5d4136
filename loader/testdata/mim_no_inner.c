/* A map-in-map whose inner map its loader sets (no __array(values, ...)),
 * beside an array the loader could use for it.
 * Built with: clang-19 -O2 -g -target bpfel -c mim_no_inner.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} outer SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} template SEC(".maps");

SEC("xdp")
int lookup(struct xdp_md *ctx)
{
	__u32 key = 0;
	void *inner = bpf_map_lookup_elem(&outer, &key);
	__u64 *v;

	if (!inner)
		return XDP_PASS;
	v = bpf_map_lookup_elem(inner, &key);
	return v && *v ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
