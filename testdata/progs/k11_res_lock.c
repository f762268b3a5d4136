#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Resilient spin locks: bpf_res_spin_lock may fail, so the verifier
 * follows both the path where it returned 0 with the lock held and the
 * path where it returned an error in [-4095, -1] without it. Several may
 * be held, released innermost first; taking one twice is a deadlock. */

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock(struct bpf_res_spin_lock *lock) __ksym;
extern void bpf_res_spin_unlock(struct bpf_res_spin_lock *lock) __ksym;
extern int bpf_res_spin_lock_irqsave(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;
extern void bpf_res_spin_unlock_irqrestore(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

struct k11_obj {
	__u64 x;
	struct bpf_res_spin_lock lock;
};

struct k11_elem {
	__u64 cnt;
	struct bpf_res_spin_lock lock;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct k11_elem);
} k11_locks SEC(".maps");

struct bpf_res_spin_lock k11_lock_a SEC(".data.k11a");
struct bpf_res_spin_lock k11_lock_b SEC(".data.k11b");

// vercheck: accept
SEC("tc")
int k11_res_lock_ok(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct k11_elem *e = bpf_map_lookup_elem(&k11_locks, &key);

	if (!e)
		return 0;
	if (bpf_res_spin_lock(&e->lock))
		return 1;
	e->cnt++;
	bpf_res_spin_unlock(&e->lock);
	return 0;
}

/* The failure path's r0 is a negative errno: -r0 - 1 indexes 4096
 * bytes safely. (Accepted programs take locks in map values: a global
 * data section holding a lock cannot be memory-mapped, which the loader
 * of the golden records needs.) */
// vercheck: accept
SEC("tc")
int k11_res_lock_errno(struct __sk_buff *skb)
{
	__u8 buf[64] = {};
	__u32 key = 1;
	struct k11_elem *e = bpf_map_lookup_elem(&k11_locks, &key);
	int ret;

	if (!e)
		return 0;
	ret = bpf_res_spin_lock(&e->lock);
	if (!ret) {
		bpf_res_spin_unlock(&e->lock);
		return 0;
	}
	return buf[(-ret - 1) & 63] + (ret < -4095);
}

/* Two elements of one map are two locks: the lookups' ids tell them
 * apart. */
// vercheck: accept
SEC("tc")
int k11_res_lock_nested(struct __sk_buff *skb)
{
	__u32 k0 = 0, k1 = 1;
	struct k11_elem *a = bpf_map_lookup_elem(&k11_locks, &k0);
	struct k11_elem *b = bpf_map_lookup_elem(&k11_locks, &k1);
	unsigned long f1, f2;

	if (!a || !b)
		return 0;
	if (bpf_res_spin_lock_irqsave(&a->lock, &f1))
		return 0;
	if (bpf_res_spin_lock_irqsave(&b->lock, &f2)) {
		bpf_res_spin_unlock_irqrestore(&a->lock, &f1);
		return 0;
	}
	bpf_res_spin_unlock_irqrestore(&b->lock, &f2);
	bpf_res_spin_unlock_irqrestore(&a->lock, &f1);
	return 0;
}

/* Taking and dropping the lock in a loop: both outcomes of each take
 * join again after the unlock. */
// vercheck: accept
SEC("tc")
int k11_res_lock_loop(struct __sk_buff *skb)
{
	__u32 key = 2;
	struct k11_elem *e = bpf_map_lookup_elem(&k11_locks, &key);
	int n = skb->len & 7, fails = 0;

	if (!e)
		return 0;
	for (int i = 0; i < n; i++) {
		if (bpf_res_spin_lock(&e->lock)) {
			fails++;
			continue;
		}
		e->cnt += i;
		bpf_res_spin_unlock(&e->lock);
	}
	return fails;
}

/* In 6.18 a resilient lock in an object of the program's own type is no
 * lock: btf_parse_struct_metas does not look for it, so the object has
 * no record, no lock to take, and the lock's bytes are plain memory. */
// vercheck: reject "local 'kptr' has no valid bpf_res_spin_lock"
SEC("tc")
int k11_res_lock_object(struct __sk_buff *skb)
{
	struct k11_obj *o = bpf_obj_new(struct k11_obj);

	if (!o)
		return 0;
	if (bpf_res_spin_lock(&o->lock)) {
		bpf_obj_drop(o);
		return 0;
	}
	o->x = skb->len;
	bpf_res_spin_unlock(&o->lock);
	bpf_obj_drop(o);
	return 1;
}

// vercheck: accept
SEC("tc")
int k11_res_lock_object_plain(struct __sk_buff *skb)
{
	struct k11_obj *o = bpf_obj_new(struct k11_obj);

	if (!o)
		return 0;
	o->lock.val = skb->len;
	bpf_obj_drop(o);
	return 1;
}

/* The numeric iterator's kfuncs may be called under a lock. */
// vercheck: accept
SEC("tc")
int k11_res_lock_iter(struct __sk_buff *skb)
{
	__u32 key = 3;
	struct k11_elem *e = bpf_map_lookup_elem(&k11_locks, &key);
	struct bpf_iter_num it;
	int *v;

	if (!e)
		return 0;
	if (bpf_res_spin_lock(&e->lock))
		return 0;
	bpf_iter_num_new(&it, 0, 4);
	while ((v = bpf_iter_num_next(&it)))
		e->cnt += *v;
	bpf_iter_num_destroy(&it);
	bpf_res_spin_unlock(&e->lock);
	return 1;
}

// vercheck: reject "bpf_res_spin_unlock without taking a lock"
SEC("tc")
int k11_res_lock_unchecked(struct __sk_buff *skb)
{
	bpf_res_spin_lock(&k11_lock_a);
	bpf_res_spin_unlock(&k11_lock_a);
	return 0;
}

// vercheck: reject "Acquiring the same lock again, AA deadlock detected"
SEC("tc")
int k11_res_lock_aa(struct __sk_buff *skb)
{
	if (bpf_res_spin_lock(&k11_lock_a))
		return 0;
	if (bpf_res_spin_lock(&k11_lock_a))
		return 0;
	bpf_res_spin_unlock(&k11_lock_a);
	return 0;
}

// vercheck: reject "bpf_res_spin_unlock cannot be out of order"
SEC("tc")
int k11_res_lock_ooo(struct __sk_buff *skb)
{
	if (bpf_res_spin_lock(&k11_lock_a))
		return 0;
	if (bpf_res_spin_lock(&k11_lock_b)) {
		bpf_res_spin_unlock(&k11_lock_a);
		return 0;
	}
	bpf_res_spin_unlock(&k11_lock_a);
	bpf_res_spin_unlock(&k11_lock_b);
	return 0;
}

// vercheck: reject "bpf_res_spin_unlock of different lock"
SEC("tc")
int k11_res_lock_kind(struct __sk_buff *skb)
{
	unsigned long f;

	if (bpf_res_spin_lock_irqsave(&k11_lock_a, &f))
		return 0;
	bpf_res_spin_unlock(&k11_lock_a);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region"
SEC("tc")
int k11_res_lock_exit_held(struct __sk_buff *skb)
{
	if (bpf_res_spin_lock(&k11_lock_a))
		return 0;
	return 1;
}

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int k11_res_lock_helper(struct __sk_buff *skb)
{
	if (bpf_res_spin_lock(&k11_lock_a))
		return 0;
	bpf_get_prandom_u32();
	bpf_res_spin_unlock(&k11_lock_a);
	return 0;
}

// vercheck: reject "socket filter progs cannot use bpf_spin_lock yet"
SEC("socket")
int k11_res_lock_socket(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct k11_elem *e = bpf_map_lookup_elem(&k11_locks, &key);

	return e ? 1 : 0;
}

char _license[] SEC("license") = "GPL";
