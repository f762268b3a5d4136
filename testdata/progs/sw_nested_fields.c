#include "progs.h"

/* Special fields inside nested structs and arrays of a map value: the
 * kernel finds them there too (btf_find_nested_struct), at their offsets
 * in the whole value, and repeats kptr fields over an array's elements.
 */

#define __kptr __attribute__((btf_type_tag("kptr")))

struct cpumask {
	unsigned long bits[1];
};

struct bpf_cpumask {
	struct cpumask cpumask;
};

extern struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;

struct sw_locked {
	int pad;
	struct bpf_spin_lock lock;
};

struct sw_nested_val {
	__u64 count;
	struct sw_locked in;
	struct bpf_cpumask __kptr *masks[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct sw_nested_val);
} sw_nested SEC(".maps");

// vercheck: accept
SEC("tp_btf/task_newtask")
int sw_nested_lock(void *ctx)
{
	struct sw_nested_val *v;
	int key = 0;

	v = bpf_map_lookup_elem(&sw_nested, &key);
	if (!v)
		return 0;
	bpf_spin_lock(&v->in.lock);
	v->count++;
	bpf_spin_unlock(&v->in.lock);
	return 0;
}

// vercheck: accept
SEC("tp_btf/task_newtask")
int sw_nested_kptr_array(void *ctx)
{
	struct bpf_cpumask *m, *old;
	struct sw_nested_val *v;
	int key = 0;

	v = bpf_map_lookup_elem(&sw_nested, &key);
	if (!v)
		return 0;
	m = bpf_cpumask_create();
	if (!m)
		return 0;
	old = bpf_kptr_xchg(&v->masks[1], m);
	if (old)
		bpf_cpumask_release(old);
	return 0;
}

/* The lock is a special field wherever it is nested: no direct access. */
// vercheck: reject "bpf_spin_lock cannot be accessed directly by load/store"
SEC("tp_btf/task_newtask")
int sw_nested_lock_store(void *ctx)
{
	struct sw_nested_val *v;
	int key = 0;

	v = bpf_map_lookup_elem(&sw_nested, &key);
	if (!v)
		return 0;
	*(int *)&v->in.lock = 0;
	return 0;
}

/* Locks are never repeated over an array's elements: the kernel's search
 * fails and it keeps the map with no record, so it has no lock at all. */
struct sw_lock_arr_val {
	struct bpf_spin_lock locks[2];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct sw_lock_arr_val);
} sw_lock_arr SEC(".maps");

// vercheck: reject "map 'sw_lock_arr' has no valid bpf_spin_lock"
SEC("tc")
int sw_nested_lock_array(struct __sk_buff *skb)
{
	struct sw_lock_arr_val *v;
	int key = 0;

	v = bpf_map_lookup_elem(&sw_lock_arr, &key);
	if (!v)
		return 0;
	bpf_spin_lock(&v->locks[0]);
	bpf_spin_unlock(&v->locks[0]);
	return 0;
}

char _license[] SEC("license") = "GPL";
