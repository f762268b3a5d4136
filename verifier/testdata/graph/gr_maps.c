/* Graph roots and local kptrs in maps and globals: what the kernel makes
 * of them depends on the BTF the loader creates the maps with
 * (verifier.Options.MapBTF; graph_loader_test.go). Built from the
 * repository root with
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -I/usr/include/x86_64-linux-gnu \
 *     -Itestdata/progs -c verifier/testdata/graph/gr_maps.c \
 *     -o verifier/testdata/graph/gr_maps.o && llvm-strip-19 -g verifier/testdata/graph/gr_maps.o
 */
#include "gr_graph.h"

#define private(name) SEC(".bss." #name) __attribute__((visibility("hidden"), aligned(8)))

struct gr_mnode {
	long key;
	struct bpf_list_node node;
};

struct gr_mhead {
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(gr_mnode, node);
};

private(A) struct bpf_spin_lock gr_glock;
private(A) struct bpf_list_head gr_ghead __contains(gr_mnode, node);

struct gr_mvalue {
	struct bpf_spin_lock lock;
	struct bpf_list_head head __contains(gr_mnode, node);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct gr_mvalue);
	__uint(max_entries, 1);
} gr_heads SEC(".maps");

struct gr_mstash {
	struct gr_mnode __attribute__((btf_type_tag("kptr"))) *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, int);
	__type(value, struct gr_mstash);
	__uint(max_entries, 1);
} gr_stash SEC(".maps");

SEC("tc")
int gr_map_global_push(struct __sk_buff *skb)
{
	struct gr_mnode *n = bpf_obj_new(struct gr_mnode);

	if (!n)
		return 0;
	bpf_spin_lock(&gr_glock);
	bpf_list_push_front(&gr_ghead, &n->node);
	bpf_spin_unlock(&gr_glock);
	return 0;
}

SEC("tc")
int gr_map_struct_push(struct __sk_buff *skb)
{
	struct gr_mvalue *v;
	struct gr_mnode *n;
	int zero = 0;

	v = bpf_map_lookup_elem(&gr_heads, &zero);
	if (!v)
		return 0;
	n = bpf_obj_new(struct gr_mnode);
	if (!n)
		return 0;
	bpf_spin_lock(&v->lock);
	bpf_list_push_front(&v->head, &n->node);
	bpf_spin_unlock(&v->lock);
	return 0;
}

SEC("tc")
int gr_map_kptr_push(struct __sk_buff *skb)
{
	struct gr_mstash *s;
	struct gr_mhead *h;
	struct gr_mnode *n;
	int zero = 0;

	/* gr_mnode must be in the program's BTF for gr_mhead's root. */
	n = bpf_obj_new(struct gr_mnode);
	if (n)
		bpf_obj_drop(n);
	s = bpf_map_lookup_elem(&gr_stash, &zero);
	if (!s)
		return 0;
	n = bpf_kptr_xchg(&s->p, NULL);
	if (!n)
		return 0;
	h = bpf_obj_new(struct gr_mhead);
	if (!h) {
		bpf_obj_drop(n);
		return 0;
	}
	bpf_spin_lock(&h->lock);
	bpf_list_push_front(&h->head, &n->node);
	bpf_spin_unlock(&h->lock);
	bpf_obj_drop(h);
	return 0;
}

SEC("tc")
int gr_map_kptr_stash(struct __sk_buff *skb)
{
	struct gr_mstash *s;
	struct gr_mnode *n;
	int zero = 0;

	s = bpf_map_lookup_elem(&gr_stash, &zero);
	if (!s)
		return 0;
	n = bpf_obj_new(struct gr_mnode);
	if (!n)
		return 0;
	n = bpf_kptr_xchg(&s->p, n);
	if (n)
		bpf_obj_drop(n);
	return 0;
}

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

/* A refcounted kptr loaded inside an RCU read section is an RCU-protected
 * non-owning reference of the map's BTF: bpf_refcount_acquire keeps it. */
SEC("tc")
int gr_map_kptr_rcu_acquire(struct __sk_buff *skb)
{
	struct gr_rcstash *s;
	struct gr_rcnode *n, *m;
	int zero = 0;
	long k = 0;

	/* Names the struct in full: clang gives the BTF of a struct only
	 * pointed to a forward declaration. */
	m = bpf_obj_new(struct gr_rcnode);
	if (m)
		bpf_obj_drop(m);
	s = bpf_map_lookup_elem(&gr_rcstash, &zero);
	if (!s)
		return 0;
	bpf_rcu_read_lock();
	n = s->p;
	if (n) {
		k = n->key;
		m = bpf_refcount_acquire(n);
		if (m)
			bpf_obj_drop(m);
	}
	bpf_rcu_read_unlock();
	return k;
}

char _license[] SEC("license") = "GPL";
