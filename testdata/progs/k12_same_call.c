#include "gr_graph.h"

/* One kfunc call instruction reached with objects of different types. */

extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;

#define __noinline __attribute__((noinline))

struct k12_ra {
	long a;
	struct bpf_spin_lock lock;
};

struct k12_rb {
	long a, b;
	struct bpf_spin_lock lock;
};

struct k12_pa {
	long a;
};

struct k12_pb {
	long a, b;
};

struct k12_pa2 {
	long x;
};

struct k12_ca {
	long a;
	struct bpf_refcount ref;
};

struct k12_cb {
	long a, b;
	struct bpf_refcount ref;
};

static __noinline void k12_drop(void *p)
{
	bpf_obj_drop(p);
}

static __noinline void *k12_new(__u64 id)
{
	return bpf_obj_new_impl(id, NULL);
}

#define K12_DROP2(ta, tb)                          \
	ta *a = bpf_obj_new(ta);                   \
	tb *b;                                     \
	if (!a)                                    \
		return 0;                          \
	b = bpf_obj_new(tb);                       \
	if (!b) {                                  \
		bpf_obj_drop(a);                   \
		return 0;                          \
	}                                          \
	k12_drop(a);                               \
	k12_drop(b);                               \
	return 0;

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_drop_rec(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_ra, struct k12_rb)
}

// vercheck: accept
SEC("tc")
int k12_sc_drop_plain(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_pa, struct k12_pb)
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_drop_plain_rec(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_pa, struct k12_ra)
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_drop_rec_plain(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_ra, struct k12_pa)
}

// vercheck: accept
SEC("tc")
int k12_sc_drop_same(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_ra, struct k12_ra)
}

#define K12_NEW2(ta, tb)                                          \
	ta *a = k12_new(bpf_core_type_id_local(ta));              \
	tb *b;                                                    \
	if (!a)                                                   \
		return 0;                                         \
	bpf_obj_drop(a);                                          \
	b = k12_new(bpf_core_type_id_local(tb));                  \
	if (b)                                                    \
		bpf_obj_drop(b);                                  \
	return 0;

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_new_plain(struct __sk_buff *skb)
{
	K12_NEW2(struct k12_pa, struct k12_pb)
}

// vercheck: accept
SEC("tc")
int k12_sc_new_plain_size(struct __sk_buff *skb)
{
	K12_NEW2(struct k12_pa, struct k12_pa2)
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_new_rec(struct __sk_buff *skb)
{
	K12_NEW2(struct k12_ra, struct k12_rb)
}

struct k12_ra2 {
	long x;
	struct bpf_spin_lock lock;
};

// vercheck: accept
SEC("tc")
int k12_sc_new_rec_size(struct __sk_buff *skb)
{
	K12_NEW2(struct k12_ra, struct k12_ra2)
}

// vercheck: accept
SEC("tc")
int k12_sc_drop_rec_layout(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_ra, struct k12_ra2)
}

struct k12_ra3 {
	long x;
	struct bpf_spin_lock lock;
	long y;
};

// vercheck: accept
SEC("tc")
int k12_sc_drop_rec_bigger(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_ra, struct k12_ra3)
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_new_plain_rec_size(struct __sk_buff *skb)
{
	K12_NEW2(struct k12_pb, struct k12_ra)
}

static __noinline void *k12_pnew(__u64 id)
{
	return bpf_percpu_obj_new_impl(id, NULL);
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_pnew(struct __sk_buff *skb)
{
	void *a = k12_pnew(bpf_core_type_id_local(struct k12_pa));
	void *b;

	if (!a)
		return 0;
	bpf_percpu_obj_drop_impl(a, NULL);
	b = k12_pnew(bpf_core_type_id_local(struct k12_pb));
	if (b)
		bpf_percpu_obj_drop_impl(b, NULL);
	return 0;
}

static __noinline void *k12_acquire(void *p)
{
	return bpf_refcount_acquire(p);
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_acquire(struct __sk_buff *skb)
{
	struct k12_ca *a = bpf_obj_new(struct k12_ca), *a2;
	struct k12_cb *b, *b2;

	if (!a)
		return 0;
	b = bpf_obj_new(struct k12_cb);
	if (!b) {
		bpf_obj_drop(a);
		return 0;
	}
	a2 = k12_acquire(a);
	b2 = k12_acquire(b);
	bpf_obj_drop(a);
	bpf_obj_drop(b);
	bpf_obj_drop(a2);
	bpf_obj_drop(b2);
	return 0;
}

static __noinline void k12_pdrop(void *p)
{
	bpf_percpu_obj_drop_impl(p, NULL);
}

// vercheck: accept
SEC("tc")
int k12_sc_pdrop(struct __sk_buff *skb)
{
	void *a = bpf_percpu_obj_new_impl(bpf_core_type_id_local(struct k12_pa), NULL);
	void *b;

	if (!a)
		return 0;
	b = bpf_percpu_obj_new_impl(bpf_core_type_id_local(struct k12_pb), NULL);
	if (!b) {
		bpf_percpu_obj_drop_impl(a, NULL);
		return 0;
	}
	k12_pdrop(a);
	k12_pdrop(b);
	return 0;
}

/* Lists: roots in allocated objects. */
struct k12_na {
	long a;
	struct bpf_list_node node;
};

struct k12_nb {
	long a, b;
	struct bpf_list_node node;
};

struct k12_na2 {
	long x;
	struct bpf_list_node node;
};

struct k12_nc {
	struct bpf_list_node n1;
	struct bpf_list_node n2;
};

struct k12_roots {
	struct bpf_spin_lock lock;
	struct bpf_list_head ha __contains(k12_na, node);
	struct bpf_list_head hb __contains(k12_nb, node);
	struct bpf_list_head h1 __contains(k12_nc, n1);
	struct bpf_list_head h2 __contains(k12_nc, n2);
	struct bpf_list_head ha2 __contains(k12_na2, node);
};

static __noinline int k12_push(struct bpf_list_head *h, struct bpf_list_node *n)
{
	return bpf_list_push_front(h, n);
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_push(struct __sk_buff *skb)
{
	struct k12_roots *r = bpf_obj_new(struct k12_roots);
	struct k12_na *a;
	struct k12_nb *b;

	if (!r)
		return 0;
	a = bpf_obj_new(struct k12_na);
	if (!a) {
		bpf_obj_drop(r);
		return 0;
	}
	b = bpf_obj_new(struct k12_nb);
	if (!b) {
		bpf_obj_drop(a);
		bpf_obj_drop(r);
		return 0;
	}
	bpf_spin_lock(&r->lock);
	k12_push(&r->ha, &a->node);
	k12_push(&r->hb, &b->node);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

struct k12_xa {
	struct bpf_spin_lock lock;
	struct bpf_list_head h __contains(k12_na, node);
};

struct k12_xb {
	struct bpf_spin_lock lock;
	struct bpf_list_head h __contains(k12_na2, node);
};

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_drop_root_value(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_xa, struct k12_xb)
}

struct k12_ka {
	struct bpf_spin_lock lock;
	struct k12_pa __kptr *p;
};

struct k12_kb {
	struct bpf_spin_lock lock;
	struct k12_pb __kptr *p;
};

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_drop_kptr_target(struct __sk_buff *skb)
{
	K12_DROP2(struct k12_ka, struct k12_kb)
}

// vercheck: accept
SEC("tc")
int k12_sc_push_layout(struct __sk_buff *skb)
{
	struct k12_roots *r = bpf_obj_new(struct k12_roots);
	struct k12_na *a;
	struct k12_na2 *b;

	if (!r)
		return 0;
	a = bpf_obj_new(struct k12_na);
	if (!a) {
		bpf_obj_drop(r);
		return 0;
	}
	b = bpf_obj_new(struct k12_na2);
	if (!b) {
		bpf_obj_drop(a);
		bpf_obj_drop(r);
		return 0;
	}
	bpf_spin_lock(&r->lock);
	k12_push(&r->ha, &a->node);
	k12_push(&r->ha2, &b->node);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_push_off(struct __sk_buff *skb)
{
	struct k12_roots *r = bpf_obj_new(struct k12_roots);
	struct k12_nc *a, *b;

	if (!r)
		return 0;
	a = bpf_obj_new(struct k12_nc);
	if (!a) {
		bpf_obj_drop(r);
		return 0;
	}
	b = bpf_obj_new(struct k12_nc);
	if (!b) {
		bpf_obj_drop(a);
		bpf_obj_drop(r);
		return 0;
	}
	bpf_spin_lock(&r->lock);
	k12_push(&r->h1, &a->n1);
	k12_push(&r->h2, &b->n2);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

struct k12_ta {
	long key;
	struct bpf_rb_node node;
};

struct k12_tb {
	long key, b;
	struct bpf_rb_node node;
};

struct k12_troots {
	struct bpf_spin_lock lock;
	struct bpf_rb_root ra __contains(k12_ta, node);
	struct bpf_rb_root rb __contains(k12_tb, node);
};

static _Bool k12_less(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	return a < b;
}

static __noinline int k12_add(struct bpf_rb_root *r, struct bpf_rb_node *n)
{
	return bpf_rbtree_add(r, n, k12_less);
}

// vercheck: reject "or mark the callee with __attribute__((nomerge))"
// vercheck: accept without kfunc-one-type
SEC("tc")
int k12_sc_rbadd(struct __sk_buff *skb)
{
	struct k12_troots *r = bpf_obj_new(struct k12_troots);
	struct k12_ta *a;
	struct k12_tb *b;

	if (!r)
		return 0;
	a = bpf_obj_new(struct k12_ta);
	if (!a) {
		bpf_obj_drop(r);
		return 0;
	}
	b = bpf_obj_new(struct k12_tb);
	if (!b) {
		bpf_obj_drop(a);
		bpf_obj_drop(r);
		return 0;
	}
	bpf_spin_lock(&r->lock);
	k12_add(&r->ra, &a->node);
	k12_add(&r->rb, &b->node);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

/* bpf_kptr_xchg is a helper: the kernel keeps no type per call, and one
 * call exchanges objects of two structs. */
struct k12_kelem {
	struct k12_ra __kptr *ra;
	struct k12_pa __kptr *pa;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_kelem);
} k12_kelems SEC(".maps");

static __noinline void *k12_xchg(void *field)
{
	return bpf_kptr_xchg(field, NULL);
}

// vercheck: accept
SEC("tc")
int k12_sc_kptr_xchg(struct __sk_buff *skb)
{
	int k = 0;
	struct k12_kelem *e = bpf_map_lookup_elem(&k12_kelems, &k);
	struct k12_ra *a;
	struct k12_pa *b;

	if (!e)
		return 0;
	a = k12_xchg(&e->ra);
	if (a)
		bpf_obj_drop(a);
	b = k12_xchg(&e->pa);
	if (b)
		bpf_obj_drop(b);
	return 0;
}

char _license[] SEC("license") = "GPL";
