#include "progs.h"
#include <bpf/bpf_core_read.h>

/* bpf_spin_lock in an object of the program's own type (bpf_obj_new): the
 * lock must be the struct's bpf_spin_lock field, and while it is held no
 * function but bpf_spin_unlock (and the graph kfuncs) may be called. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct lo_locked {
	__u64 x;
	struct bpf_spin_lock lock;
	__u64 y;
};

struct lo_plain {
	__u64 x;
	__u64 y;
};

// vercheck: accept
SEC("tc")
int lo_objlock_ok(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);

	if (!n)
		return 0;
	bpf_spin_lock(&n->lock);
	n->x = skb->len;
	bpf_spin_unlock(&n->lock);
	bpf_obj_drop(n);
	return 0;
}

// vercheck: reject "local 'kptr' has no valid bpf_spin_lock"
SEC("tc")
int lo_objlock_nolock(struct __sk_buff *skb)
{
	struct lo_plain *n = bpf_obj_new(struct lo_plain);

	if (!n)
		return 0;
	bpf_spin_lock((void *)&n->y);
	bpf_spin_unlock((void *)&n->y);
	bpf_obj_drop(n);
	return 0;
}

// vercheck: reject "off 16 doesn't point to 'struct bpf_spin_lock' that is at 8"
SEC("tc")
int lo_objlock_wrong_off(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);

	if (!n)
		return 0;
	bpf_spin_lock((void *)&n->y);
	bpf_spin_unlock((void *)&n->y);
	bpf_obj_drop(n);
	return 0;
}

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int lo_objlock_drop_locked(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);

	if (!n)
		return 0;
	bpf_spin_lock(&n->lock);
	bpf_obj_drop(n);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region"
SEC("tc")
int lo_objlock_exit_locked(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);

	if (!n)
		return 0;
	bpf_spin_lock(&n->lock);
	return 0;
}

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int lo_objlock_two(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);
	struct lo_locked *m;

	if (!n)
		return 0;
	m = bpf_obj_new(struct lo_locked);
	if (!m) {
		bpf_obj_drop(n);
		return 0;
	}
	bpf_spin_lock(&n->lock);
	bpf_spin_lock(&m->lock);
	bpf_spin_unlock(&m->lock);
	bpf_spin_unlock(&n->lock);
	bpf_obj_drop(n);
	bpf_obj_drop(m);
	return 0;
}

// vercheck: reject "bpf_spin_unlock of different lock"
SEC("tc")
int lo_objlock_unlock_other(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);
	struct lo_locked *m;

	if (!n)
		return 0;
	m = bpf_obj_new(struct lo_locked);
	if (!m) {
		bpf_obj_drop(n);
		return 0;
	}
	bpf_spin_lock(&n->lock);
	bpf_spin_unlock(&m->lock);
	bpf_obj_drop(n);
	bpf_obj_drop(m);
	return 0;
}

char _license[] SEC("license") = "GPL";
