#include "gr_graph.h"

/* Red-black trees of allocated objects whose root is in an allocated
 * object: bpf_rbtree_add calls its less callback (verified like bpf_loop's
 * with two non-owning nodes), bpf_rbtree_first/root/left/right peek
 * (non-owning), bpf_rbtree_remove takes a non-owning node and gives an
 * owning one; bpf_refcount_acquire needs a struct with a bpf_refcount. */

struct gr_rnode {
	long key;
	struct bpf_rb_node node;
};

struct gr_rnode2 {
	long key;
	struct bpf_rb_node node;
};

struct gr_rroot {
	struct bpf_spin_lock lock;
	struct bpf_rb_root root __contains(gr_rnode, node);
};

struct gr_rcnode {
	long key;
	struct bpf_rb_node node;
	struct bpf_refcount ref;
};

struct gr_rcroot {
	struct bpf_spin_lock lock;
	struct bpf_rb_root root __contains(gr_rcnode, node);
};

static _Bool gr_less(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	struct gr_rnode *x = container_of(a, struct gr_rnode, node);
	struct gr_rnode *y = container_of(b, struct gr_rnode, node);

	return x->key < y->key;
}

static _Bool gr_less_rc(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	struct gr_rcnode *x = container_of(a, struct gr_rcnode, node);
	struct gr_rcnode *y = container_of(b, struct gr_rcnode, node);

	return x->key < y->key;
}

static _Bool gr_less_bad(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	return a->__opaque[1] < b->__opaque[1];
}

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

static _Bool gr_less_rcu(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	bpf_rcu_read_unlock();
	bpf_rcu_read_lock();
	return 0;
}

/* Allocates the root and one node, or returns 0. */
#define GR_ALLOC(r, n)                          \
	r = bpf_obj_new(struct gr_rroot);       \
	if (!r)                                 \
		return 0;                       \
	n = bpf_obj_new(struct gr_rnode);       \
	if (!n) {                               \
		bpf_obj_drop(r);                \
		return 0;                       \
	}

// vercheck: accept
SEC("tc")
int gr_rb_add(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;

	GR_ALLOC(r, n);
	n->key = skb->len;
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: accept
SEC("tc")
int gr_rb_first_remove(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;
	struct bpf_rb_node *f;

	GR_ALLOC(r, n);
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less);
	f = bpf_rbtree_first(&r->root);
	if (!f) {
		bpf_spin_unlock(&r->lock);
		bpf_obj_drop(r);
		return 0;
	}
	f = bpf_rbtree_remove(&r->root, f);
	bpf_spin_unlock(&r->lock);
	if (f)
		bpf_obj_drop(container_of(f, struct gr_rnode, node));
	bpf_obj_drop(r);
	return 0;
}

// vercheck: accept
SEC("tc")
int gr_rb_walk(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;
	struct bpf_rb_node *t, *l;
	long k = 0;

	GR_ALLOC(r, n);
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less);
	t = bpf_rbtree_root(&r->root);
	if (t) {
		k = container_of(t, struct gr_rnode, node)->key;
		l = bpf_rbtree_left(&r->root, t);
		if (l)
			k += container_of(l, struct gr_rnode, node)->key;
		l = bpf_rbtree_right(&r->root, t);
		if (l)
			k += container_of(l, struct gr_rnode, node)->key;
	}
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return k;
}

/* Since 6.16 bpf_rbtree_remove takes an owning reference too: the
 * removed node is a second reference to drop. */
// vercheck: accept
SEC("tc")
int gr_rb_remove_owning(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;
	struct bpf_rb_node *f;

	GR_ALLOC(r, n);
	bpf_spin_lock(&r->lock);
	f = bpf_rbtree_remove(&r->root, &n->node);
	bpf_spin_unlock(&r->lock);
	if (f)
		bpf_obj_drop(container_of(f, struct gr_rnode, node));
	bpf_obj_drop(n);
	bpf_obj_drop(r);
	return 0;
}

/* A node added under one lock section is no reference in the next. */
// vercheck: reject "bpf_rbtree_left can only take non-owning or refcounted bpf_rb_node pointer"
SEC("tc")
int gr_rb_left_stale(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;
	struct bpf_rb_node *t;

	GR_ALLOC(r, n);
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less);
	bpf_spin_unlock(&r->lock);
	bpf_spin_lock(&r->lock);
	t = bpf_rbtree_left(&r->root, &n->node);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return t != 0;
}

// vercheck: reject "bpf_spin_lock at off=0 must be held for bpf_rb_root"
SEC("tc")
int gr_rb_first_nolock(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;

	GR_ALLOC(r, n);
	bpf_obj_drop(n);
	bpf_rbtree_first(&r->root);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: reject "direct access to bpf_rb_node is disallowed"
SEC("tc")
int gr_rb_bad_less(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;

	GR_ALLOC(r, n);
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less_bad);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: reject "bpf_rb_node not found at offset=0"
SEC("tc")
int gr_rb_node_offset(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;

	GR_ALLOC(r, n);
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, (struct bpf_rb_node *)&n->key, gr_less);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: reject "operation on bpf_rb_root expects arg#1 bpf_rb_node at offset=8 in struct gr_rnode, but arg is at offset=8 in struct gr_rnode2"
SEC("tc")
int gr_rb_wrong_type(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *m;
	struct gr_rnode2 *n;

	GR_ALLOC(r, m);
	bpf_obj_drop(m);
	n = bpf_obj_new(struct gr_rnode2);
	if (!n) {
		bpf_obj_drop(r);
		return 0;
	}
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: accept
SEC("tc")
int gr_rc_acquire(struct __sk_buff *skb)
{
	struct gr_rcroot *r;
	struct gr_rcnode *n, *m;

	r = bpf_obj_new(struct gr_rcroot);
	if (!r)
		return 0;
	n = bpf_obj_new(struct gr_rcnode);
	if (!n) {
		bpf_obj_drop(r);
		return 0;
	}
	m = bpf_refcount_acquire(n);
	m->key = 3;
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less_rc);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(m);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: reject "invalid mem access 'ptr_or_null_'"
SEC("tc")
int gr_rc_acquire_nonown(struct __sk_buff *skb)
{
	struct gr_rcroot *r;
	struct gr_rcnode *n, *m;

	r = bpf_obj_new(struct gr_rcroot);
	if (!r)
		return 0;
	n = bpf_obj_new(struct gr_rcnode);
	if (!n) {
		bpf_obj_drop(r);
		return 0;
	}
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less_rc);
	m = bpf_refcount_acquire(n);
	bpf_spin_unlock(&r->lock);
	m->key = 3;
	bpf_obj_drop(m);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: reject "arg#0 doesn't point to a type with bpf_refcount field"
SEC("tc")
int gr_rc_acquire_plain(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n, *m;

	GR_ALLOC(r, n);
	m = bpf_refcount_acquire(n);
	if (m)
		bpf_obj_drop(m);
	bpf_obj_drop(n);
	bpf_obj_drop(r);
	return 0;
}

/* The less callback runs under the caller's lock: it may call no kfunc
 * but the graph ones, so the rule against leaving the caller's RCU read
 * section there is never reached. */
// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int gr_rb_less_rcu_unlock(struct __sk_buff *skb)
{
	struct gr_rroot *r;
	struct gr_rnode *n;

	GR_ALLOC(r, n);
	bpf_rcu_read_lock();
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less_rcu);
	bpf_spin_unlock(&r->lock);
	bpf_rcu_read_unlock();
	bpf_obj_drop(r);
	return 0;
}

/* A refcounted struct may be a node of a list and of a tree at once:
 * bpf_refcount_acquire gives the second reference to link. */
struct gr_both {
	long key;
	struct bpf_list_node l;
	struct bpf_rb_node r;
	struct bpf_refcount ref;
};

struct gr_both_roots {
	struct bpf_spin_lock lock;
	struct bpf_rb_root tree __contains(gr_both, r);
	struct bpf_list_head list __contains(gr_both, l);
};

static _Bool gr_less_both(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	return container_of(a, struct gr_both, r)->key < container_of(b, struct gr_both, r)->key;
}

// vercheck: accept
SEC("tc")
int gr_rc_list_and_tree(struct __sk_buff *skb)
{
	struct gr_both_roots *g;
	struct gr_both *n, *m;
	struct bpf_rb_node *f;
	struct bpf_list_node *l;

	g = bpf_obj_new(struct gr_both_roots);
	if (!g)
		return 0;
	n = bpf_obj_new(struct gr_both);
	if (!n) {
		bpf_obj_drop(g);
		return 0;
	}
	m = bpf_refcount_acquire(n);
	bpf_spin_lock(&g->lock);
	bpf_rbtree_add(&g->tree, &n->r, gr_less_both);
	bpf_list_push_back(&g->list, &m->l);
	f = bpf_rbtree_first(&g->tree);
	if (f)
		f = bpf_rbtree_remove(&g->tree, f);
	l = bpf_list_pop_front(&g->list);
	bpf_spin_unlock(&g->lock);
	if (f)
		bpf_obj_drop(container_of(f, struct gr_both, r));
	if (l)
		bpf_obj_drop(container_of(l, struct gr_both, l));
	bpf_obj_drop(g);
	return 0;
}

char _license[] SEC("license") = "GPL";
