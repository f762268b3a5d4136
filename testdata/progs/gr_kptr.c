#include "gr_graph.h"

/* A referenced kptr to a refcounted struct of the program, loaded inside
 * an RCU read section, is an RCU-protected allocated object (a
 * non-owning reference when the struct is a graph node,
 * btf_ld_kptr_type): readable and writable there, read-only once
 * bpf_rcu_read_unlock made it untrusted. The kernel says so under any
 * loader: only moving such objects, or using them as graph nodes, depends
 * on the map's BTF. */

struct gr_rcnode {
	long key;
	struct bpf_rb_node node;
	struct bpf_refcount ref;
};

struct gr_rcstash {
	struct gr_rcnode __attribute__((btf_type_tag("kptr"))) *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct gr_rcstash);
	__uint(max_entries, 1);
} gr_rcstash SEC(".maps");

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

/* Names the struct in full: clang gives the BTF of a struct only pointed
 * to a forward declaration, which no kptr is. */
#define GR_NAME_NODE()                                            \
	do {                                                      \
		struct gr_rcnode *m = bpf_obj_new(struct gr_rcnode); \
		if (m)                                            \
			bpf_obj_drop(m);                          \
	} while (0)

// vercheck: accept
SEC("tc")
int gr_kptr_rcu_rw(struct __sk_buff *skb)
{
	struct gr_rcstash *s;
	struct gr_rcnode *n;
	int zero = 0;
	long k = 0;

	GR_NAME_NODE();
	s = bpf_map_lookup_elem(&gr_rcstash, &zero);
	if (!s)
		return 0;
	bpf_rcu_read_lock();
	n = s->p;
	if (n) {
		n->key++;
		k = n->key;
	}
	bpf_rcu_read_unlock();
	return k;
}

// vercheck: reject "only read is supported"
SEC("tc")
int gr_kptr_write_after_unlock(struct __sk_buff *skb)
{
	struct gr_rcstash *s;
	struct gr_rcnode *n;
	int zero = 0;

	GR_NAME_NODE();
	s = bpf_map_lookup_elem(&gr_rcstash, &zero);
	if (!s)
		return 0;
	bpf_rcu_read_lock();
	n = s->p;
	if (!n) {
		bpf_rcu_read_unlock();
		return 0;
	}
	bpf_rcu_read_unlock();
	n->key = 5;
	return 0;
}

/* A non-sleepable program runs in an RCU read section as a whole. */
// vercheck: reject "R1 invalid mem access 'rcu_ptr_or_null_'"
SEC("tc")
int gr_kptr_unchecked(struct __sk_buff *skb)
{
	struct gr_rcstash *s;
	struct gr_rcnode *n;
	int zero = 0;

	GR_NAME_NODE();
	s = bpf_map_lookup_elem(&gr_rcstash, &zero);
	if (!s)
		return 0;
	n = s->p;
	return n->key;
}

char _license[] SEC("license") = "GPL";
