#include "gr_graph.h"

/* bpf_refcount_acquire of an owned object returns a pointer that is never
 * NULL; when the object holds a bpf_spin_lock the kernel gives it an id of
 * its own (check_kfunc_call: reg_may_point_to_spin_lock && !id), so the
 * locks of two acquired pointers are two locks: locking one and unlocking
 * the other is "bpf_spin_unlock of different lock". vercheck gave kfunc
 * results no such id (helpers' map values had it) and accepted. Found by a
 * review of allocated objects in sleepable programs against the live
 * kernel (session 33). */
char _license[] SEC("license") = "GPL";

struct s33_lobj {
	long key;
	struct bpf_spin_lock lock;
	struct bpf_refcount ref;
};

// vercheck: reject "bpf_spin_unlock of different lock"
SEC("syscall")
int s33_acquired_lock_other(void *ctx)
{
	struct s33_lobj *a, *b, *c;

	a = bpf_obj_new(struct s33_lobj);
	if (!a)
		return 0;
	b = bpf_refcount_acquire(a);
	c = bpf_refcount_acquire(a);
	bpf_spin_lock(&b->lock);
	bpf_spin_unlock(&c->lock);
	bpf_obj_drop(b);
	bpf_obj_drop(c);
	bpf_obj_drop(a);
	return 0;
}

// vercheck: accept
SEC("syscall")
int s33_acquired_lock_same(void *ctx)
{
	struct s33_lobj *a, *b;

	a = bpf_obj_new(struct s33_lobj);
	if (!a)
		return 0;
	b = bpf_refcount_acquire(a);
	bpf_spin_lock(&b->lock);
	bpf_spin_unlock(&b->lock);
	bpf_obj_drop(b);
	bpf_obj_drop(a);
	return 0;
}
