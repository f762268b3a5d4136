#include "progs.h"

/* The key a bpf_for_each_map_elem callback is given (PTR_TO_MAP_KEY):
 * check_mem_access lets it be read within the key's size and refuses any
 * store ("write to change key"), also the write half of an atomic
 * operation, and check_helper_mem_access refuses it as memory a helper
 * writes. The value beside it is the map's, writable. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} s22_arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u64);
	__type(value, __u64);
} s22_hash SEC(".maps");

static long s22_read_key(void *map, __u32 *key, __u64 *val, void *ctx)
{
	*val += *key;
	return 0;
}

/* Reading the key and writing the value. */
// vercheck: accept
SEC("tc")
int s22_key_read(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_arr, s22_read_key, NULL, 0);
	return 0;
}

static long s22_store_key(void *map, __u32 *key, __u64 *val, void *ctx)
{
	*key = 1;
	return 0;
}

/* A store into the key. */
// vercheck: reject "write to change key R2 not allowed"
SEC("tc")
int s22_key_store(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_arr, s22_store_key, NULL, 0);
	return 0;
}

static long s22_helper_key(void *map, __u64 *key, __u64 *val, void *ctx)
{
	bpf_probe_read_kernel(key, sizeof(*key), NULL);
	return 0;
}

/* The key as the memory a helper writes. */
// vercheck: reject "R1 cannot write into map_key"
SEC("tc")
int s22_key_helper_write(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_hash, s22_helper_key, NULL, 0);
	return 0;
}

static long s22_helper_key_read(void *map, __u64 *key, __u64 *val, void *ctx)
{
	__u64 k = *key;

	return bpf_map_lookup_elem(&s22_hash, key) ? k & 0 : 0;
}

/* The key as memory a helper reads (bpf_map_lookup_elem's key). */
// vercheck: accept
SEC("tc")
int s22_key_helper_read(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_hash, s22_helper_key_read, NULL, 0);
	return 0;
}

static long s22_atomic_key(void *map, __u64 *key, __u64 *val, void *ctx)
{
	__sync_fetch_and_add(key, 1);
	return 0;
}

/* An atomic operation on the key. */
// vercheck: reject "write to change key R2 not allowed"
SEC("tc")
int s22_key_atomic(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_hash, s22_atomic_key, NULL, 0);
	return 0;
}

static __noinline long s22_wide_key(void *map, __u32 *key, __u64 *val, void *ctx)
{
	asm volatile ("r0 = *(u64 *)(r2 + 0);" ::: "r0");
	return 0;
}

/* A read past the end of a four-byte key. */
// vercheck: reject "R2 min value is outside of the allowed memory range"
SEC("tc")
int s22_key_read_past(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_arr, s22_wide_key, NULL, 0);
	return 0;
}

static long s22_var_key(void *map, __u64 *key, __u64 *val, void *ctx)
{
	__u8 *k = (__u8 *)key;

	return k[*val & 7] & 1;
}

/* A read at a variable offset inside the key. */
// vercheck: accept
SEC("tc")
int s22_key_var_read(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_hash, s22_var_key, NULL, 0);
	return 0;
}

static long s22_var_key_past(void *map, __u64 *key, __u64 *val, void *ctx)
{
	__u8 *k = (__u8 *)key;

	return k[*val & 15];
}

/* A variable offset that may leave the key. */
// vercheck: reject "R2 max value is outside of the allowed memory range"
SEC("tc")
int s22_key_var_past(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_hash, s22_var_key_past, NULL, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
