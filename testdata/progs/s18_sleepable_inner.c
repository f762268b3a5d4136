#include "progs.h"

/* A sleepable program may use a map of maps only if its inner maps are
 * of the types it may use itself, on builds with sleepable-inner-maps
 * (the refusal then ends "..., also as inner maps"). 6.18.0 checks the
 * outer map only. */

char _license[] SEC("license") = "GPL";

struct s18_devmap {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct s18_devmap);
} s18_devmaps SEC(".maps");

struct s18_array {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct s18_array);
} s18_arrays SEC(".maps");

/* Inner devmaps: not for a sleepable program. */
// vercheck: reject "Sleepable programs can only use array, hash, ringbuf and local storage maps, also as inner maps"
// vercheck: accept without sleepable-inner-maps
SEC("syscall")
int s18_sleepable_inner_devmap(void *ctx)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&s18_devmaps, &key) != 0;
}

/* Inner arrays: allowed. */
// vercheck: accept
SEC("syscall")
int s18_sleepable_inner_array(void *ctx)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&s18_arrays, &key) != 0;
}
