#include "gr_graph.h"

/* A refcounted graph node loaded from a kptr inside an RCU read section
 * is an RCU-protected non-owning reference; bpf_rcu_read_unlock makes it
 * untrusted. On the builds without stablefix.RCUUnlockKeepsNonOwn it is
 * then read without a reference, but it stays an allocated object
 * (MEM_ALLOC): btf_struct_access still refuses its special fields and
 * reads its pointer fields as numbers. vercheck made it a plain untrusted
 * pointer and let a load reach the bpf_rb_node inside it: a false accept
 * found by the fuzz seed 20261901 run (a mutant of
 * g12_rcu_unlock_non_own.c reading 8 bytes further). Under the 6.18.0
 * rule the node stays a non-owning reference and the verdicts are the
 * same. */

struct s19_node {
	long key;
	struct s19_node *next;
	struct bpf_rb_node node;
	struct bpf_refcount ref;
};

struct s19_stash {
	struct s19_node __attribute__((btf_type_tag("kptr"))) *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct s19_stash);
	__uint(max_entries, 1);
} s19_stash SEC(".maps");

char _license[] SEC("license") = "GPL";

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

/* Names the node's type for bpf_obj_new's BTF id. */
#define S19_NAME_NODE()							\
	do {								\
		struct s19_node *m = bpf_obj_new(struct s19_node);	\
		if (m)							\
			bpf_obj_drop(m);				\
	} while (0)

/* The node, loaded inside an RCU section and used after it. */
#define S19_NODE_AFTER_UNLOCK(n)					\
	struct s19_stash *s;						\
	struct s19_node *n;						\
	int zero = 0;							\
									\
	S19_NAME_NODE();						\
	s = bpf_map_lookup_elem(&s19_stash, &zero);			\
	if (!s)								\
		return 0;						\
	bpf_rcu_read_lock();						\
	n = s->p;							\
	bpf_rcu_read_unlock();						\
	if (!n)								\
		return 0

/* A plain field: readable. */
// vercheck: accept
SEC("tc")
int s19_unlock_read_key(struct __sk_buff *skb)
{
	S19_NODE_AFTER_UNLOCK(n);
	return n->key;
}

/* The bpf_rb_node inside it: refused. */
// vercheck: reject "direct access to bpf_rb_node is disallowed"
SEC("tc")
int s19_unlock_read_rb_node(struct __sk_buff *skb)
{
	S19_NODE_AFTER_UNLOCK(n);
	return *(volatile long *)((char *)n + 16);
}

/* A pointer field reads as a number, which cannot be dereferenced. */
// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("tc")
int s19_unlock_follow_next(struct __sk_buff *skb)
{
	struct s19_node *m;

	S19_NODE_AFTER_UNLOCK(n);
	m = n->next;
	if (!m)
		return 0;
	return m->key;
}
