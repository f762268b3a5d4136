#include "gr_graph.h"

/* bpf_rcu_read_unlock makes the RCU pointers untrusted. 6.18.0 (and 7.x)
 * leave a refcounted graph node loaded from a kptr a non-owning reference
 * there, which the next bpf_spin_unlock destroys; the 6.18.44-fc-v1045
 * build (not upstream) makes it a plain untrusted pointer, still readable
 * after a lock section. The first expectation of a program whose verdict
 * depends on it is the older rule's (stablefix.RCUUnlockKeepsNonOwn), the
 * "without" line that of this machine's kernel. */

struct g12_nor_node {
	long key;
	struct bpf_rb_node node;
	struct bpf_refcount ref;
};

struct g12_nor_stash {
	struct g12_nor_node __attribute__((btf_type_tag("kptr"))) *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct g12_nor_stash);
	__uint(max_entries, 1);
} g12_nor_stash SEC(".maps");

struct g12_nor_lock {
	struct bpf_spin_lock l;
	long n;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct g12_nor_lock);
	__uint(max_entries, 1);
} g12_nor_lock SEC(".maps");

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

#define GR_NAME_NODE()                                            \
	do {                                                      \
		struct g12_nor_node *m = bpf_obj_new(struct g12_nor_node); \
		if (m)                                            \
			bpf_obj_drop(m);                          \
	} while (0)

/* Read after the RCU section and a lock section. */
// vercheck: reject "R8 invalid mem access 'scalar'"
// vercheck: accept without rcu-unlock-keeps-non-own
SEC("tc")
int g12_nor_read_after_spin(struct __sk_buff *skb)
{
	struct g12_nor_stash *s;
	struct g12_nor_node *n;
	struct g12_nor_lock *l;
	int zero = 0;

	GR_NAME_NODE();
	s = bpf_map_lookup_elem(&g12_nor_stash, &zero);
	if (!s)
		return 0;
	l = bpf_map_lookup_elem(&g12_nor_lock, &zero);
	if (!l)
		return 0;
	bpf_rcu_read_lock();
	n = s->p;
	bpf_rcu_read_unlock();
	if (!n)
		return 0;
	bpf_spin_lock(&l->l);
	bpf_spin_unlock(&l->l);
	return n->key;
}

/* Inside the RCU section the node is a non-owning reference either way:
 * the lock section destroys it. */
// vercheck: reject "R7 invalid mem access 'scalar'"
SEC("tc")
int g12_nor_read_in_rcu_after_spin(struct __sk_buff *skb)
{
	struct g12_nor_stash *s;
	struct g12_nor_node *n;
	struct g12_nor_lock *l;
	int zero = 0;
	long k;

	GR_NAME_NODE();
	s = bpf_map_lookup_elem(&g12_nor_stash, &zero);
	if (!s)
		return 0;
	l = bpf_map_lookup_elem(&g12_nor_lock, &zero);
	if (!l)
		return 0;
	bpf_rcu_read_lock();
	n = s->p;
	if (!n) {
		bpf_rcu_read_unlock();
		return 0;
	}
	bpf_spin_lock(&l->l);
	bpf_spin_unlock(&l->l);
	k = n->key;
	bpf_rcu_read_unlock();
	return k;
}

char _license[] SEC("license") = "GPL";
