#include "progs.h"
#include <bpf/bpf_core_read.h>

/* bpf_kptr_xchg into a kptr field of an allocated object (the destination
 * may be PTR_TO_BTF_ID | MEM_ALLOC as well as a map value: process_kptr_func
 * takes the record of the object's struct). The object and its kptr's struct
 * are both of the program's BTF, whatever the loader. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))

struct p7_inner {
	__u64 v;
};

struct p7_other {
	__u64 w;
};

struct p7_outer {
	__u64 plain;
	struct p7_inner __kptr *in;
};

/* Stash a new object in another one, take it back out. */
// vercheck: accept
SEC("tc")
int p7_xchg_alloc_stash(struct __sk_buff *skb)
{
	struct p7_outer *o = bpf_obj_new(struct p7_outer);
	struct p7_inner *i, *old;

	if (!o)
		return 0;
	i = bpf_obj_new(struct p7_inner);
	if (!i) {
		bpf_obj_drop(o);
		return 0;
	}
	i->v = skb->len;
	old = bpf_kptr_xchg(&o->in, i);
	if (old)
		bpf_obj_drop(old);
	old = bpf_kptr_xchg(&o->in, NULL);
	if (old) {
		o->plain = old->v;
		bpf_obj_drop(old);
	}
	bpf_obj_drop(o);
	return 0;
}

/* The destination must be the kptr field itself. */
// vercheck: reject "off=0 doesn't point to kptr"
SEC("tc")
int p7_xchg_alloc_not_kptr(struct __sk_buff *skb)
{
	struct p7_outer *o = bpf_obj_new(struct p7_outer);
	struct p7_inner *old;

	if (!o)
		return 0;
	old = bpf_kptr_xchg((struct p7_inner **)&o->plain, NULL);
	if (old)
		bpf_obj_drop(old);
	bpf_obj_drop(o);
	return 0;
}

/* An object of another struct does not fit the kptr. */
// vercheck: reject "invalid kptr access, R2 type=ptr_p7_other expected=ptr_p7_inner"
SEC("tc")
int p7_xchg_alloc_wrong_type(struct __sk_buff *skb)
{
	struct p7_outer *o = bpf_obj_new(struct p7_outer);
	struct p7_other *x;
	struct p7_inner *old;

	if (!o)
		return 0;
	x = bpf_obj_new(struct p7_other);
	if (!x) {
		bpf_obj_drop(o);
		return 0;
	}
	old = bpf_kptr_xchg(&o->in, (struct p7_inner *)x);
	if (old)
		bpf_obj_drop(old);
	bpf_obj_drop(o);
	return 0;
}

char _license[] SEC("license") = "GPL";
