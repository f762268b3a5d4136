#include "progs.h"

/* Maps a program is given read-only (BPF_F_RDONLY_PROG) or write-only
 * (BPF_F_WRONLY_PROG): check_map_access_type refuses a write into the
 * first and a read of the second, whether the access is a load or store,
 * an atomic operation (which reads and writes), or a helper's access to
 * memory it is given; record_func_map refuses the helpers that change a
 * read-only map's entries. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, __u64);
} s21_ro SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__uint(map_flags, BPF_F_WRONLY_PROG);
	__type(key, __u32);
	__type(value, __u64);
} s21_wo SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, __u64);
	__type(value, __u64);
} s21_plain SEC(".maps");

/* Reading a read-only map's value. */
// vercheck: accept
SEC("socket")
int s21_ro_read(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_ro, &k);

	return v ? *v & 1 : 0;
}

/* Writing it. */
// vercheck: reject "write into map forbidden, value_size=8 off=0 size=8"
SEC("socket")
int s21_ro_write(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_ro, &k);

	if (v)
		*v = 1;
	return 0;
}

/* An atomic add reads and writes: the write is refused. */
// vercheck: reject "write into map forbidden, value_size=8 off=0 size=8"
SEC("socket")
int s21_ro_atomic(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_ro, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

/* A helper that writes the memory it is given. */
// vercheck: reject "write into map forbidden, value_size=8 off=0 size=8"
SEC("socket")
int s21_ro_helper_write(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_ro, &k);

	if (v)
		bpf_skb_load_bytes(skb, 0, v, 8);
	return 0;
}

/* Updating its entries. */
// vercheck: reject "write into map forbidden"
SEC("socket")
int s21_ro_update(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 val = 1;

	bpf_map_update_elem(&s21_ro, &k, &val, BPF_ANY);
	return 0;
}

/* Writing a write-only map's value. */
// vercheck: accept
SEC("socket")
int s21_wo_write(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_wo, &k);

	if (v)
		*v = skb->len;
	return 0;
}

/* Reading it. */
// vercheck: reject "read from map forbidden, value_size=8 off=0 size=8"
SEC("socket")
int s21_wo_read(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_wo, &k);

	return v ? *v & 1 : 0;
}

/* An atomic add: the read is refused first. */
// vercheck: reject "read from map forbidden, value_size=8 off=0 size=8"
SEC("socket")
int s21_wo_atomic(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_wo, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
	return 0;
}

/* A helper reading it: the value given as another map's key. */
// vercheck: reject "read from map forbidden, value_size=8 off=0 size=8"
SEC("socket")
int s21_wo_as_key(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_wo, &k);

	if (v && bpf_map_lookup_elem(&s21_plain, v))
		return 1;
	return 0;
}

/* A helper writing it: allowed. */
// vercheck: accept
SEC("socket")
int s21_wo_helper_write(struct __sk_buff *skb)
{
	__u32 k = skb->len & 1;
	__u64 *v = bpf_map_lookup_elem(&s21_wo, &k);

	if (v)
		bpf_skb_load_bytes(skb, 0, v, 8);
	return 0;
}

char _license[] SEC("license") = "GPL";
