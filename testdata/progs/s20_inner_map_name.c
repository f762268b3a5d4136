#include "progs.h"

/* A value looked up in an inner map points into the map of maps' inner
 * template (inner_map_meta), which has no name: the lock checks name the
 * map '' there, and the inner map's own name only when it is used
 * directly. */

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock(struct bpf_res_spin_lock *lock) __ksym;
extern void bpf_res_spin_unlock(struct bpf_res_spin_lock *lock) __ksym;

struct s20_val {
	__u64 a;
	__u64 b;
};

struct s20_named_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s20_val);
} s20_named_inner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, int);
	__array(values, struct s20_named_inner);
} s20_outer SEC(".maps");

static struct s20_val *s20_inner_value(void)
{
	int k = 0;
	void *inner = bpf_map_lookup_elem(&s20_outer, &k);

	if (!inner)
		return 0;
	return bpf_map_lookup_elem(inner, &k);
}

// vercheck: reject "map '' has no valid bpf_spin_lock"
SEC("tc")
int s20_inner_spin_lock(struct __sk_buff *skb)
{
	struct s20_val *v = s20_inner_value();

	if (!v)
		return 0;
	bpf_spin_lock((struct bpf_spin_lock *)&v->b);
	bpf_spin_unlock((struct bpf_spin_lock *)&v->b);
	return 0;
}

// vercheck: reject "map '' has no valid bpf_res_spin_lock"
SEC("tc")
int s20_inner_res_spin_lock(struct __sk_buff *skb)
{
	struct s20_val *v = s20_inner_value();

	if (!v)
		return 0;
	if (bpf_res_spin_lock((struct bpf_res_spin_lock *)&v->b))
		return 0;
	bpf_res_spin_unlock((struct bpf_res_spin_lock *)&v->b);
	return 0;
}

/* The same map used directly is named. */
// vercheck: reject "map 's20_named_inner' has no valid bpf_spin_lock"
SEC("tc")
int s20_direct_spin_lock(struct __sk_buff *skb)
{
	int k = 0;
	struct s20_val *v = bpf_map_lookup_elem(&s20_named_inner, &k);

	if (!v)
		return 0;
	bpf_spin_lock((struct bpf_spin_lock *)&v->b);
	bpf_spin_unlock((struct bpf_spin_lock *)&v->b);
	return 0;
}

char _license[] SEC("license") = "GPL";
