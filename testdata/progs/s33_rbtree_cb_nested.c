#include "gr_graph.h"

/* A less callback of bpf_rbtree_add runs with the tree's lock held
 * (in_rbtree_lock_required_cb): in it, and in any subprogram it calls, a
 * spin lock or unlock is "can't spin_{lock,unlock} in rbtree cb", a
 * resilient one "can't res_spin_{lock,unlock} in rbtree cb" (EACCES,
 * before the lock is looked at). vercheck looked at the callback's own
 * frame only, and had no resilient-lock check: the nested lock was
 * refused later with another message. A static subprogram called from the
 * callback is refused before that when it is not void ("function calls
 * are not allowed while holding a lock"); the selftests' void one
 * reaches the lock check. Found through the 7.3 selftests (rbtree_fail.c)
 * against the live kernel (session 33). */
char _license[] SEC("license") = "GPL";

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock(struct bpf_res_spin_lock *lock) __ksym;
extern void bpf_res_spin_unlock(struct bpf_res_spin_lock *lock) __ksym;

struct s33_rnode {
	long key;
	struct bpf_rb_node node;
};

struct s33_rroot {
	struct bpf_spin_lock lock;
	struct bpf_rb_root root __contains(s33_rnode, node);
};

/* Locks the callbacks reach without a helper call (which a held lock
 * forbids): globals of a section of their own, as the selftests' glock. */
struct bpf_spin_lock s33_glock SEC(".bss.s33");
struct bpf_res_spin_lock s33_res_glock SEC(".bss.s33res");

static __noinline int s33_lock_other(void)
{
	bpf_spin_lock(&s33_glock);
	bpf_spin_unlock(&s33_glock);
	return 0;
}

static __noinline int s33_plain_sub(long x)
{
	return x > 10;
}

static _Bool s33_less_sub_lock(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	s33_lock_other();
	return 0;
}

static _Bool s33_less_res_lock(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	if (bpf_res_spin_lock(&s33_res_glock))
		return 0;
	bpf_res_spin_unlock(&s33_res_glock);
	return 0;
}

static _Bool s33_less_sub_plain(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	struct s33_rnode *x = container_of(a, struct s33_rnode, node);

	return s33_plain_sub(x->key);
}

#define S33_ADD_WITH(less)					\
	struct s33_rroot *r;					\
	struct s33_rnode *n;					\
								\
	r = bpf_obj_new(struct s33_rroot);			\
	if (!r)							\
		return 0;					\
	n = bpf_obj_new(struct s33_rnode);			\
	if (!n) {						\
		bpf_obj_drop(r);				\
		return 0;					\
	}							\
	bpf_spin_lock(&r->lock);				\
	bpf_rbtree_add(&r->root, &n->node, less);		\
	bpf_spin_unlock(&r->lock);				\
	bpf_obj_drop(r);					\
	return 0

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int s33_rb_cb_subprog_lock(struct __sk_buff *skb)
{
	S33_ADD_WITH(s33_less_sub_lock);
}

// vercheck: reject "can't res_spin_{lock,unlock} in rbtree cb"
SEC("tc")
int s33_rb_cb_res_lock(struct __sk_buff *skb)
{
	S33_ADD_WITH(s33_less_res_lock);
}

// vercheck: accept
SEC("tc")
int s33_rb_cb_subprog_plain(struct __sk_buff *skb)
{
	S33_ADD_WITH(s33_less_sub_plain);
}
