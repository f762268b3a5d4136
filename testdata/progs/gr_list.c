#include "gr_graph.h"

/* Linked lists of allocated objects whose root is in an allocated object
 * (the program's BTF holds both structs whatever the loader): the lock
 * beside the root must be held, a pushed object is a non-owning reference
 * until bpf_spin_unlock, a popped one is owned again. */

struct gr_lnode {
	long key;
	struct bpf_list_node node;
};

struct gr_lnode2 {
	long key;
	struct bpf_list_node node;
};

struct gr_lhead {
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(gr_lnode, node);
};

/* Allocates the head and one node, or returns 0. */
#define GR_ALLOC(h, n)                          \
	h = bpf_obj_new(struct gr_lhead);       \
	if (!h)                                 \
		return 0;                       \
	n = bpf_obj_new(struct gr_lnode);       \
	if (!n) {                               \
		bpf_obj_drop(h);                \
		return 0;                       \
	}

// vercheck: accept
SEC("tc")
int gr_list_push_pop(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;
	struct bpf_list_node *l;

	GR_ALLOC(h, n);
	n->key = skb->len;
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	l = bpf_list_pop_back(&h->head);
	bpf_spin_unlock(&h->lock);
	if (l)
		bpf_obj_drop(container_of(l, struct gr_lnode, node));
	bpf_obj_drop(h);
	return 0;
}

// vercheck: accept
SEC("tc")
int gr_list_nonown_in_lock(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;
	long k;

	GR_ALLOC(h, n);
	bpf_spin_lock(&h->lock);
	bpf_list_push_back(&h->head, &n->node);
	n->key = 7;
	k = n->key;
	bpf_spin_unlock(&h->lock);
	bpf_obj_drop(h);
	return k;
}

// vercheck: reject "bpf_spin_lock at off=0 must be held for bpf_list_head"
SEC("tc")
int gr_list_nolock(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;

	GR_ALLOC(h, n);
	bpf_list_push_front(&h->head, &n->node);
	bpf_obj_drop(h);
	return 0;
}

// vercheck: reject "invalid mem access 'scalar'"
SEC("tc")
int gr_list_after_unlock(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;

	GR_ALLOC(h, n);
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	bpf_spin_unlock(&h->lock);
	n->key = 1;
	bpf_obj_drop(h);
	return 0;
}

// vercheck: reject "arg#1 expected pointer to allocated object"
SEC("tc")
int gr_list_push_twice(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;

	GR_ALLOC(h, n);
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	bpf_list_push_back(&h->head, &n->node);
	bpf_spin_unlock(&h->lock);
	bpf_obj_drop(h);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int gr_list_pop_leak(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;
	struct bpf_list_node *l;

	GR_ALLOC(h, n);
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	l = bpf_list_pop_front(&h->head);
	bpf_spin_unlock(&h->lock);
	bpf_obj_drop(h);
	return l != 0;
}

// vercheck: accept
SEC("tc")
int gr_list_front_peek(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;
	struct bpf_list_node *l;
	long k = 0;

	GR_ALLOC(h, n);
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	l = bpf_list_front(&h->head);
	if (l)
		k = container_of(l, struct gr_lnode, node)->key;
	l = bpf_list_back(&h->head);
	if (l)
		k += container_of(l, struct gr_lnode, node)->key;
	bpf_spin_unlock(&h->lock);
	bpf_obj_drop(h);
	return k;
}

// vercheck: reject "invalid mem access 'scalar'"
SEC("tc")
int gr_list_front_after_unlock(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;
	struct bpf_list_node *l;
	long k = 0;

	GR_ALLOC(h, n);
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	l = bpf_list_front(&h->head);
	bpf_spin_unlock(&h->lock);
	if (l)
		k = container_of(l, struct gr_lnode, node)->key;
	bpf_obj_drop(h);
	return k;
}

// vercheck: reject "bpf_list_head not found at offset=0"
SEC("tc")
int gr_list_head_offset(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;

	GR_ALLOC(h, n);
	bpf_spin_lock(&h->lock);
	bpf_list_push_front((struct bpf_list_head *)&h->lock, &n->node);
	bpf_spin_unlock(&h->lock);
	bpf_obj_drop(h);
	return 0;
}

// vercheck: reject "operation on bpf_list_head expects arg#1 bpf_list_node at offset=8 in struct gr_lnode, but arg is at offset=8 in struct gr_lnode2"
SEC("tc")
int gr_list_wrong_type(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *m;
	struct gr_lnode2 *n;

	/* The program's BTF under cilium/ebpf has the types it allocates:
	 * gr_lnode must be one for the head's __contains to resolve. */
	GR_ALLOC(h, m);
	bpf_obj_drop(m);
	n = bpf_obj_new(struct gr_lnode2);
	if (!n) {
		bpf_obj_drop(h);
		return 0;
	}
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	bpf_spin_unlock(&h->lock);
	bpf_obj_drop(h);
	return 0;
}

// vercheck: reject "bpf_spin_lock at off=0 must be held for bpf_list_head"
SEC("tc")
int gr_list_other_lock(struct __sk_buff *skb)
{
	struct gr_lhead *h, *g;
	struct gr_lnode *n;

	GR_ALLOC(h, n);
	g = bpf_obj_new(struct gr_lhead);
	if (!g) {
		bpf_obj_drop(h);
		bpf_obj_drop(n);
		return 0;
	}
	bpf_spin_lock(&g->lock);
	bpf_list_push_front(&h->head, &n->node);
	bpf_spin_unlock(&g->lock);
	bpf_obj_drop(h);
	bpf_obj_drop(g);
	return 0;
}

// vercheck: reject "direct access to bpf_list_node is disallowed"
SEC("tc")
int gr_list_node_access(struct __sk_buff *skb)
{
	struct gr_lhead *h;
	struct gr_lnode *n;
	long v;

	GR_ALLOC(h, n);
	v = n->node.__opaque[0];
	bpf_obj_drop(n);
	bpf_obj_drop(h);
	return v;
}

/* A list of objects that hold lists: a node may own roots whose nodes
 * own none (the kernel refuses ownership cycles). The compiler merges the
 * bpf_obj_drop of t (a gr_top) and of m (a gr_mid, on the path where i is
 * NULL) into one call, which a kernel with the kfunc-one-type stable fix
 * refuses; 6.18.44-fc-v973 accepts it. */
struct gr_inner {
	long k;
	struct bpf_list_node node;
};

struct gr_mid {
	struct bpf_list_node node;
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(gr_inner, node);
};

struct gr_top {
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(gr_mid, node);
};

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int gr_list_in_list(struct __sk_buff *skb)
{
	struct gr_top *t = bpf_obj_new(struct gr_top);
	struct gr_mid *m;
	struct gr_inner *i;

	if (!t)
		return 0;
	m = bpf_obj_new(struct gr_mid);
	if (!m) {
		bpf_obj_drop(t);
		return 0;
	}
	i = bpf_obj_new(struct gr_inner);
	if (!i) {
		bpf_obj_drop(t);
		bpf_obj_drop(m);
		return 0;
	}
	bpf_spin_lock(&m->lock);
	bpf_list_push_front(&m->head, &i->node);
	bpf_spin_unlock(&m->lock);
	bpf_spin_lock(&t->lock);
	bpf_list_push_front(&t->head, &m->node);
	bpf_spin_unlock(&t->lock);
	bpf_obj_drop(t);
	return 0;
}

char _license[] SEC("license") = "GPL";
