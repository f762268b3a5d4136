#include "progs.h"
#include <bpf/bpf_core_read.h>

/* bpf_kptr_xchg's destination is a map value or an allocated object of
 * the program's own type exactly (kptr_xchg_dest_types): an object that
 * may be NULL or a per-CPU one is refused as any other type would be,
 * before its kptr fields are looked at. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))

struct s20_leaf {
	__u64 v;
};

struct s20_holder {
	struct s20_leaf __kptr *leaf;
	__u64 pad;
};

struct s20_pc {
	__u64 a;
	__u64 b;
};

/* The object before its NULL check, at its kptr (offset 0). */
// vercheck: reject "R1 type=ptr_or_null_ expected=map_value, ptr_"
SEC("tc")
int s20_xchg_dest_maybe_null(struct __sk_buff *skb)
{
	struct s20_holder *h = bpf_obj_new(struct s20_holder);
	struct s20_leaf *old;

	old = bpf_kptr_xchg((struct s20_leaf **)h, NULL);
	if (old)
		bpf_obj_drop(old);
	if (h)
		bpf_obj_drop(h);
	return 0;
}

/* A per-CPU object. */
// vercheck: reject "R1 type=percpu_ptr_ expected=map_value, ptr_"
SEC("tc")
int s20_xchg_dest_percpu(struct __sk_buff *skb)
{
	struct s20_pc *p = bpf_percpu_obj_new_impl(bpf_core_type_id_local(struct s20_pc), NULL);
	struct s20_leaf *l = bpf_obj_new(struct s20_leaf);
	struct s20_leaf *old;

	if (l)
		l->v = 1;
	if (!p) {
		if (l)
			bpf_obj_drop(l);
		return 0;
	}
	old = bpf_kptr_xchg((struct s20_leaf **)&p->b, NULL);
	if (old)
		bpf_obj_drop(old);
	if (l)
		bpf_obj_drop(l);
	bpf_percpu_obj_drop_impl(p, NULL);
	return 0;
}

char _license[] SEC("license") = "GPL";
