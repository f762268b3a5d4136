#include "progs.h"

/* The BTF of a map's key and value as BPF_MAP_CREATE checks it
 * (map_check_btf): an array is keyed by a 32-bit int, a cgroup storage by
 * a u64 or struct bpf_cgroup_storage_key. When the kernel refuses the
 * BTF with EINVAL, the loader creates the map again without it, and the
 * value's lock or timer is then plain memory: bpf_spin_lock and
 * bpf_timer_init on it are refused. Typedefs and signedness do not
 * matter; a hash may be keyed by anything. */

struct mb_locked {
	struct bpf_spin_lock lock;
	__u64 v;
};

struct mb_timed {
	struct bpf_timer t;
	__u64 v;
};

enum mb_key { MB0, MB1 };
typedef enum mb_key mb_key_t;
typedef __u32 mb_idx_t;
struct mb_k4 {
	__u32 a;
};
struct mb_k8 {
	__u64 id;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, enum mb_key);
	__type(value, struct mb_locked);
} mb_enum_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, mb_key_t);
	__type(value, struct mb_locked);
} mb_typedef_enum_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, struct mb_k4);
	__type(value, struct mb_timed);
} mb_struct_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, mb_idx_t);
	__type(value, struct mb_locked);
} mb_typedef_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __s32);
	__type(value, struct mb_timed);
} mb_signed_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, struct mb_k4);
	__type(value, struct mb_locked);
} mb_hash_struct_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct mb_k8);
	__type(value, struct mb_locked);
} mb_cg_struct_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, struct mb_locked);
} mb_cg_storage_key SEC(".maps");

static int mb_cb(void *map, int *key, void *t)
{
	return 0;
}

// vercheck: reject "map 'mb_enum_key' has to have BTF in order to use bpf_spin_lock"
SEC("tc")
int mb_lock_enum_key(struct __sk_buff *skb)
{
	enum mb_key k = 0;
	struct mb_locked *v = bpf_map_lookup_elem(&mb_enum_key, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->v++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: reject "map 'mb_typedef_enum' has to have BTF in order to use bpf_spin_lock"
SEC("tc")
int mb_lock_typedef_enum_key(struct __sk_buff *skb)
{
	mb_key_t k = 0;
	struct mb_locked *v = bpf_map_lookup_elem(&mb_typedef_enum_key, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->v++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: accept
SEC("tc")
int mb_lock_typedef_key(struct __sk_buff *skb)
{
	mb_idx_t k = 0;
	struct mb_locked *v = bpf_map_lookup_elem(&mb_typedef_key, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->v++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: reject "map 'mb_struct_key' has to have BTF in order to use bpf_timer"
SEC("tc")
int mb_timer_struct_key(struct __sk_buff *skb)
{
	struct mb_k4 k = {};
	struct mb_timed *v = bpf_map_lookup_elem(&mb_struct_key, &k);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &mb_struct_key, 1);
	return 0;
}

// vercheck: accept
SEC("tc")
int mb_timer_signed_key(struct __sk_buff *skb)
{
	__s32 k = 0;
	struct mb_timed *v = bpf_map_lookup_elem(&mb_signed_key, &k);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &mb_signed_key, 1);
	bpf_timer_set_callback(&v->t, mb_cb);
	return 0;
}

// vercheck: accept
SEC("tc")
int mb_lock_hash_struct_key(struct __sk_buff *skb)
{
	struct mb_k4 k = {};
	struct mb_locked *v = bpf_map_lookup_elem(&mb_hash_struct_key, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->v++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: reject "map 'mb_cg_struct_ke' has to have BTF in order to use bpf_spin_lock"
SEC("cgroup_skb/egress")
int mb_lock_cg_struct_key(struct __sk_buff *skb)
{
	struct mb_locked *v = bpf_get_local_storage(&mb_cg_struct_key, 0);

	bpf_spin_lock(&v->lock);
	v->v++;
	bpf_spin_unlock(&v->lock);
	return 1;
}

// vercheck: accept
SEC("cgroup_skb/egress")
int mb_lock_cg_storage_key(struct __sk_buff *skb)
{
	struct mb_locked *v = bpf_get_local_storage(&mb_cg_storage_key, 0);

	bpf_spin_lock(&v->lock);
	v->v++;
	bpf_spin_unlock(&v->lock);
	return 1;
}

char _license[] SEC("license") = "GPL";
