#include "progs.h"

/* Map definitions the kernel refuses to create (BPF_MAP_CREATE fails
 * before any program is loaded, with no verifier log): preallocation
 * turned off on an array, both program-access flags, a hash map's LRU
 * flag on a plain hash, an array's 8-byte keys (EINVAL), and a program
 * access flag on a map whose value holds a lock (map_check_btf: EACCES),
 * and fields the map type cannot hold: a lock in an LRU hash, a timer in
 * a per-CPU hash (map_check_btf: EOPNOTSUPP; cilium/ebpf does not retry
 * without BTF on it). Each program uses one; the last uses a map the
 * kernel creates. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u64);
} mc_array_no_prealloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG);
	__type(key, __u32);
	__type(value, __u64);
} mc_hash_ro_wo SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
	__type(key, __u32);
	__type(value, __u64);
} mc_hash_percpu_lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} mc_array_wide_key SEC(".maps");

struct mc_locked {
	struct bpf_spin_lock lock;
	__u64 v;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct mc_locked);
} mc_locked_ro SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mc_locked);
} mc_lru_locked SEC(".maps");

struct mc_timed {
	struct bpf_timer t;
	__u64 v;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mc_timed);
} mc_pcpu_hash_timer SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} mc_good SEC(".maps");

#define LOOKUP(map)                                                    \
	{                                                              \
		__u64 k = 0;                                           \
		__u64 *v = bpf_map_lookup_elem(&map, &k);              \
		return v ? (int)*v : 0;                                \
	}

SEC("socket")
int mc_use_array_no_prealloc(void *ctx) LOOKUP(mc_array_no_prealloc)

SEC("socket")
int mc_use_hash_ro_wo(void *ctx) LOOKUP(mc_hash_ro_wo)

SEC("socket")
int mc_use_hash_percpu_lru(void *ctx) LOOKUP(mc_hash_percpu_lru)

SEC("socket")
int mc_use_array_wide_key(void *ctx) LOOKUP(mc_array_wide_key)

SEC("socket")
int mc_use_locked_ro(void *ctx)
{
	__u32 k = 0;
	struct mc_locked *v = bpf_map_lookup_elem(&mc_locked_ro, &k);

	return v ? (int)v->v : 0;
}

SEC("tc")
int mc_use_lru_locked(void *ctx)
{
	__u32 k = 0;
	struct mc_locked *v = bpf_map_lookup_elem(&mc_lru_locked, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->v++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

SEC("socket")
int mc_use_pcpu_hash_timer(void *ctx) LOOKUP(mc_pcpu_hash_timer)

SEC("socket")
int mc_use_good(void *ctx) LOOKUP(mc_good)

char _license[] SEC("license") = "GPL";
