#include "gr_graph.h"

/* Graph roots (bpf_list_head, bpf_rb_root) and local kptrs in map values,
 * inner maps and globals, as libbpf loads them: every map is created with
 * the object's whole BTF, the programs' own BTF object, so the kernel finds
 * the struct a __contains tag names and the programs' nodes are its nodes.
 * vercheck models libbpf's map BTF by default, and its kernel side loads
 * these programs the way libbpf does. */

#define private(name) SEC(".bss." #name) __attribute__((visibility("hidden"), aligned(8)))

struct g11_node {
	long key;
	struct bpf_list_node node;
};

struct g11_rnode {
	long key;
	struct bpf_rb_node rb;
};

struct g11_rnode2 {
	long key;
	struct bpf_rb_node rb;
};

struct g11_value {
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(g11_node, node);
};

struct g11_rvalue {
	long pad;
	struct bpf_spin_lock lock;
	struct bpf_rb_root root __contains(g11_rnode, rb);
};

struct g11_stash {
	struct g11_node __attribute__((btf_type_tag("kptr"))) *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct g11_value);
	__uint(max_entries, 1);
} g11_lists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, int);
	__type(value, struct g11_rvalue);
	__uint(max_entries, 4);
} g11_trees SEC(".maps");

struct g11_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct g11_value);
	__uint(max_entries, 1);
} g11_inner_lists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, int);
	__array(values, struct g11_inner);
} g11_outer SEC(".maps") = {
	.values = { [0] = &g11_inner_lists },
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct g11_stash);
	__uint(max_entries, 1);
} g11_stashes SEC(".maps");

private(A) struct bpf_spin_lock g11_glock;
private(A) struct bpf_list_head g11_ghead __contains(g11_node, node);
private(B) struct bpf_spin_lock g11_other_lock;
/* The node member g11_bad_root names is a list node: the kernel cannot
 * parse the data section's fields, and keeps no special field for it. */
private(C) struct bpf_spin_lock g11_bad_lock;
private(C) struct bpf_rb_root g11_bad_root __contains(g11_node, node);

static _Bool g11_less(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	struct g11_rnode *x = container_of(a, struct g11_rnode, rb);
	struct g11_rnode *y = container_of(b, struct g11_rnode, rb);

	return x->key < y->key;
}

/* Pushes n into v's list and pops one node back, dropping it. */
static __always_inline int g11_push_pop(struct g11_value *v, struct g11_node *n)
{
	struct bpf_list_node *l;

	bpf_spin_lock(&v->lock);
	bpf_list_push_front(&v->head, &n->node);
	l = bpf_list_pop_back(&v->head);
	bpf_spin_unlock(&v->lock);
	if (l)
		bpf_obj_drop(container_of(l, struct g11_node, node));
	return 0;
}

// vercheck: accept
SEC("tc")
int g11_map_list_push_pop(struct __sk_buff *skb)
{
	struct g11_value *v;
	struct g11_node *n;
	int key = 0;

	v = bpf_map_lookup_elem(&g11_lists, &key);
	if (!v)
		return 0;
	n = bpf_obj_new(struct g11_node);
	if (!n)
		return 0;
	n->key = skb->len;
	return g11_push_pop(v, n);
}

// vercheck: accept
SEC("tc")
int g11_inner_map_list(struct __sk_buff *skb)
{
	struct g11_value *v;
	struct g11_node *n;
	void *inner;
	int key = 0;

	inner = bpf_map_lookup_elem(&g11_outer, &key);
	if (!inner)
		return 0;
	v = bpf_map_lookup_elem(inner, &key);
	if (!v)
		return 0;
	n = bpf_obj_new(struct g11_node);
	if (!n)
		return 0;
	return g11_push_pop(v, n);
}

// vercheck: accept
SEC("tc")
int g11_global_list(struct __sk_buff *skb)
{
	struct bpf_list_node *l;
	struct g11_node *n;

	n = bpf_obj_new(struct g11_node);
	if (!n)
		return 0;
	bpf_spin_lock(&g11_glock);
	bpf_list_push_back(&g11_ghead, &n->node);
	l = bpf_list_pop_front(&g11_ghead);
	bpf_spin_unlock(&g11_glock);
	if (l)
		bpf_obj_drop(container_of(l, struct g11_node, node));
	return 0;
}

// vercheck: accept
SEC("tc")
int g11_map_rbtree_first(struct __sk_buff *skb)
{
	struct g11_rvalue *v;
	struct g11_rnode *n;
	struct bpf_rb_node *f;
	long k = 0;
	int key = 0;

	v = bpf_map_lookup_elem(&g11_trees, &key);
	if (!v)
		return 0;
	n = bpf_obj_new(struct g11_rnode);
	if (!n)
		return 0;
	n->key = skb->len;
	bpf_spin_lock(&v->lock);
	bpf_rbtree_add(&v->root, &n->rb, g11_less);
	f = bpf_rbtree_first(&v->root);
	if (f)
		k = container_of(f, struct g11_rnode, rb)->key;
	bpf_spin_unlock(&v->lock);
	return k;
}

// vercheck: reject "bpf_spin_lock at off=0 must be held for bpf_list_head"
SEC("tc")
int g11_map_list_nolock(struct __sk_buff *skb)
{
	struct g11_value *v;
	struct g11_node *n;
	int key = 0;

	v = bpf_map_lookup_elem(&g11_lists, &key);
	if (!v)
		return 0;
	n = bpf_obj_new(struct g11_node);
	if (!n)
		return 0;
	bpf_list_push_front(&v->head, &n->node);
	return 0;
}

/* The lock held is another allocation's: the kernel logs so, then
 * refuses the root. */
// vercheck: reject "bpf_spin_lock at off=0 must be held for bpf_list_head"
SEC("tc")
int g11_global_list_other_lock(struct __sk_buff *skb)
{
	struct g11_node *n;

	n = bpf_obj_new(struct g11_node);
	if (!n)
		return 0;
	bpf_spin_lock(&g11_other_lock);
	bpf_list_push_front(&g11_ghead, &n->node);
	bpf_spin_unlock(&g11_other_lock);
	return 0;
}

/* A pushed node is a non-owning reference until the unlock. */
// vercheck: reject "R8 invalid mem access 'scalar'"
SEC("tc")
int g11_map_list_after_unlock(struct __sk_buff *skb)
{
	struct g11_value *v;
	struct g11_node *n;
	int key = 0;

	v = bpf_map_lookup_elem(&g11_lists, &key);
	if (!v)
		return 0;
	n = bpf_obj_new(struct g11_node);
	if (!n)
		return 0;
	bpf_spin_lock(&v->lock);
	bpf_list_push_front(&v->head, &n->node);
	bpf_spin_unlock(&v->lock);
	return n->key;
}

/* The node is of another struct than the one the rbtree root contains,
 * though at the same offset. */
// vercheck: reject "operation on bpf_rb_root expects arg#1 bpf_rb_node at offset=8 in struct g11_rnode, but arg is at offset=8 in struct g11_rnode2"
SEC("tc")
int g11_map_rbtree_wrong_node(struct __sk_buff *skb)
{
	struct g11_rvalue *v;
	struct g11_rnode2 *n;
	int key = 0;

	v = bpf_map_lookup_elem(&g11_trees, &key);
	if (!v)
		return 0;
	n = bpf_obj_new(struct g11_rnode2);
	if (!n)
		return 0;
	bpf_spin_lock(&v->lock);
	bpf_rbtree_add(&v->root, &n->rb, g11_less);
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: reject "map '.bss.C' has no valid bpf_spin_lock"
SEC("tc")
int g11_global_root_wrong_node_kind(struct __sk_buff *skb)
{
	bpf_spin_lock(&g11_bad_lock);
	bpf_spin_unlock(&g11_bad_lock);
	return 0;
}

/* An object of the program's type into a map's kptr to that type: one
 * BTF object under libbpf, so the types match. */
// vercheck: accept
SEC("tc")
int g11_map_kptr_stash(struct __sk_buff *skb)
{
	struct g11_stash *s;
	struct g11_node *n;
	int key = 0;

	s = bpf_map_lookup_elem(&g11_stashes, &key);
	if (!s)
		return 0;
	n = bpf_obj_new(struct g11_node);
	if (!n)
		return 0;
	n = bpf_kptr_xchg(&s->p, n);
	if (n)
		bpf_obj_drop(n);
	return 0;
}

char _license[] SEC("license") = "GPL";
