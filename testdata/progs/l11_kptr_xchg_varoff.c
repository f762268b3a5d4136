#include "progs.h"
#include <bpf/bpf_core_read.h>

/* bpf_kptr_xchg into a kptr field of an object the program allocated: the
 * object pointer passes check_func_arg_reg_off before process_kptr_func,
 * so a variable offset fails there ("variable ptr_ access ... disallowed"),
 * not at the kptr's constant-offset check. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))

struct l11_leaf {
	__u64 v;
};

struct l11_holder {
	__u64 pad;
	struct l11_leaf __kptr *leaf;
};

// vercheck: reject "access var_off=(0x0; 0x1) disallowed"
SEC("tc")
int l11_xchg_var_off(struct __sk_buff *skb)
{
	struct l11_holder *h = bpf_obj_new(struct l11_holder);
	struct l11_leaf *old;
	__u64 bit = skb->len & 1;
	void *dst;

	if (!h)
		return 0;
	dst = &h->leaf;
	asm volatile("%[d] += %[b]" : [d] "+r"(dst) : [b] "r"(bit));
	old = bpf_kptr_xchg(dst, NULL);
	if (old)
		bpf_obj_drop(old);
	bpf_obj_drop(h);
	return 0;
}

char _license[] SEC("license") = "GPL";
