#include "gr_graph.h"

/* Globals in a section of their own (".bss.NAME", libbpf's custom data
 * sections, which the loader reads as libbpf does): a
 * bpf_spin_lock there is the map value's lock, found through the BTF data
 * section's variables. A less callback may not lock or unlock. */

/* Hidden, as the selftests' private(): libbpf then does not mmap the map (the
 * kernel refuses to for a map value with a lock), nor cilium/ebpf. */
#define private(name) SEC(".bss." #name) __attribute__((visibility("hidden"), aligned(8)))

private(G) struct bpf_spin_lock gr_glock;
private(G) long gr_counter;

struct gr_gnode {
	long key;
	struct bpf_rb_node node;
};

struct gr_groot {
	struct bpf_spin_lock lock;
	struct bpf_rb_root root __contains(gr_gnode, node);
};

static _Bool gr_less_unlock(struct bpf_rb_node *a, const struct bpf_rb_node *b)
{
	bpf_spin_unlock(&gr_glock);
	return 0;
}

// vercheck: accept
SEC("tc")
int gr_global_lock(struct __sk_buff *skb)
{
	bpf_spin_lock(&gr_glock);
	gr_counter += skb->len;
	bpf_spin_unlock(&gr_glock);
	return 0;
}

// vercheck: reject "bpf_spin_lock cannot be accessed directly by load/store"
SEC("tc")
int gr_global_lock_direct(struct __sk_buff *skb)
{
	return *(volatile int *)&gr_glock;
}

// vercheck: reject "can't spin_{lock,unlock} in rbtree cb"
SEC("tc")
int gr_global_unlock_in_less(struct __sk_buff *skb)
{
	struct gr_groot *r;
	struct gr_gnode *n;

	r = bpf_obj_new(struct gr_groot);
	if (!r)
		return 0;
	n = bpf_obj_new(struct gr_gnode);
	if (!n) {
		bpf_obj_drop(r);
		return 0;
	}
	bpf_spin_lock(&r->lock);
	bpf_rbtree_add(&r->root, &n->node, gr_less_unlock);
	bpf_spin_unlock(&r->lock);
	bpf_obj_drop(r);
	return 0;
}

char _license[] SEC("license") = "GPL";
