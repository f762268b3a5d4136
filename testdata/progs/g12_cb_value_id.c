#include "progs.h"

/* The map value a callback receives (r3 of bpf_for_each_map_elem's, a
 * timer's, a workqueue's or a task_work's callback) has an id of its own
 * on this machine's kernel (a build change found on 6.18.44-fc-v1045, not
 * upstream): the locks of two callbacks' values, one walk nested in the
 * other, are two locks. Kernels without it give both values id 0, and
 * bpf_spin_lock, which tells locks apart by map and id, takes them for
 * one (stablefix.CallbackValueID). */

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock(struct bpf_res_spin_lock *lock) __ksym;
extern void bpf_res_spin_unlock(struct bpf_res_spin_lock *lock) __ksym;

struct bpf_map;

struct g12_locked {
	struct bpf_spin_lock lock;
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct g12_locked);
} g12_locked SEC(".maps");

struct g12_res {
	__u64 n;
	struct bpf_res_spin_lock lock;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct g12_res);
} g12_res SEC(".maps");

struct g12_outer {
	void *outer;
};

static long unlock_outer(struct bpf_map *map, __u32 *key, struct g12_locked *val, struct g12_outer *c)
{
	struct g12_locked *o = c->outer;

	bpf_spin_lock(&val->lock);
	bpf_spin_unlock(&o->lock);
	return 0;
}

static long walk_unlock_outer(struct bpf_map *map, __u32 *key, struct g12_locked *val, void *unused)
{
	struct g12_outer c = { .outer = val };

	bpf_for_each_map_elem(&g12_locked, unlock_outer, &c, 0);
	return 0;
}

/* The inner callback locks its element and unlocks the outer one's: with
 * ids, "bpf_spin_unlock of different lock"; without, the same lock. */
// vercheck: reject "bpf_spin_unlock of different lock"
// vercheck: accept without callback-value-id
SEC("tc")
int g12_nested_unlock_other(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&g12_locked, walk_unlock_outer, 0, 0);
	return 0;
}

static long lock_both(struct bpf_map *map, __u32 *key, struct g12_res *val, struct g12_outer *c)
{
	struct g12_res *o = c->outer;

	if (bpf_res_spin_lock(&o->lock))
		return 0;
	if (bpf_res_spin_lock(&val->lock)) {
		bpf_res_spin_unlock(&o->lock);
		return 0;
	}
	val->n++;
	bpf_res_spin_unlock(&val->lock);
	bpf_res_spin_unlock(&o->lock);
	return 0;
}

static long walk_lock_both(struct bpf_map *map, __u32 *key, struct g12_res *val, void *unused)
{
	struct g12_outer c = { .outer = val };

	bpf_for_each_map_elem(&g12_res, lock_both, &c, 0);
	return 0;
}

/* Two resilient locks, the outer callback's element's then the inner
 * one's: with ids two locks; without, the second is the first taken again,
 * "AA deadlock detected". */
// vercheck: accept
// vercheck: reject "Acquiring the same lock again, AA deadlock detected" without callback-value-id
SEC("tc")
int g12_nested_res_lock_both(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&g12_res, walk_lock_both, 0, 0);
	return 0;
}

static long lock_copy(struct bpf_map *map, __u32 *key, struct g12_locked *val, void *ctx)
{
	struct g12_locked *v = val;

	bpf_spin_lock(&v->lock);
	val->n++;
	bpf_spin_unlock(&val->lock);
	return 0;
}

/* A copy of the value shares its id: one lock either way. */
// vercheck: accept
SEC("tc")
int g12_cb_lock_copy(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&g12_locked, lock_copy, 0, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
