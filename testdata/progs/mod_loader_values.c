#include "progs.h"

/* Map-in-map definitions whose inner map is named through a typedef,
 * __array(values, some_typedef_t), as production agents write them: libbpf
 * skips the typedef (parse_btf_map_def's skip_mods_and_typedefs), and so
 * does vercheck's loader. */

struct inner_counts {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} inner_counts SEC(".maps");

typedef struct inner_counts inner_counts_t;

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 4);
	__type(key, __u32);
	__array(values, inner_counts_t);
} outer_by_typedef SEC(".maps");

typedef const struct inner_counts const_inner_t;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, const_inner_t);
} outer_by_const_typedef SEC(".maps") = {
	.values = { &inner_counts },
};

/* Looks up the inner map, then a value in it. */
// vercheck: accept
SEC("socket")
int mod_values_typedef_lookup(struct __sk_buff *skb)
{
	__u32 key = 0;
	void *inner = bpf_map_lookup_elem(&outer_by_typedef, &key);
	__u64 *v;

	if (!inner)
		return 0;
	v = bpf_map_lookup_elem(inner, &key);
	return v ? *v : 0;
}

/* The inner map's values are 8 bytes long (invalid access to map value,
 * value_size=8 off=8 size=8). */
// vercheck: reject "R0 min value is outside of the allowed memory range"
SEC("socket")
int mod_values_typedef_oob(struct __sk_buff *skb)
{
	__u32 key = 0;
	void *inner = bpf_map_lookup_elem(&outer_by_const_typedef, &key);
	__u64 *v;

	if (!inner)
		return 0;
	v = bpf_map_lookup_elem(inner, &key);
	return v ? v[1] : 0;
}

char _license[] SEC("license") = "GPL";
