#include "progs.h"
#include <bpf/bpf_core_read.h>

/* One load reached with pointers of two kinds: the kernel remembers the
 * first kind per instruction and refuses another (save_aux_ptr_type, "same
 * insn cannot be used with different pointers"), but a load may mix
 * pointers to memory and BTF objects, trusted or not, read-only or not:
 * it then becomes a probe read of the merged kind. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct l7_node {
	__u64 v;
};

struct l7_holder {
	__u64 *ip;
	struct l7_node *np;
};

/* An allocated object on one path, the read-only untrusted memory behind
 * its pointer member on the other. */
// vercheck: accept
SEC("tc")
int l7_load_alloc_or_untrusted_mem(struct __sk_buff *skb)
{
	struct l7_holder *h = bpf_obj_new(struct l7_holder);
	__u64 *p;
	long r;

	if (!h)
		return 0;
	p = h->ip;
	if (!p)
		p = (__u64 *)h;
	r = *p;
	bpf_obj_drop(h);
	return r;
}

char _license[] SEC("license") = "GPL";
