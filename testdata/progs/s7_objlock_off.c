// bpf_spin_lock's argument goes through check_func_arg_reg_off before
// process_spin_lock looks for the lock: an allocated object's pointer may
// carry a fixed offset there but no variable one.
#include "progs.h"
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct s7_locked {
	__u64 x;
	struct bpf_spin_lock lock;
	__u64 y;
};

// vercheck: reject "variable ptr_ access var_off=(0x0; 0x8) disallowed"
SEC("tc")
int s7_objlock_var_off(struct __sk_buff *skb)
{
	struct s7_locked *n = bpf_obj_new(struct s7_locked);

	if (!n)
		return 0;
	bpf_spin_lock((void *)((char *)&n->lock + (skb->len & 8)));
	n->x = skb->len;
	bpf_spin_unlock(&n->lock);
	bpf_obj_drop(n);
	return 0;
}

/* A fixed offset passes that check; the lock is then not found there. */
// vercheck: reject "off 16 doesn't point to 'struct bpf_spin_lock' that is at 8"
SEC("tc")
int s7_objlock_fixed_off(struct __sk_buff *skb)
{
	struct s7_locked *n = bpf_obj_new(struct s7_locked);

	if (!n)
		return 0;
	bpf_spin_lock((void *)&n->y);
	n->x = skb->len;
	bpf_spin_unlock(&n->lock);
	bpf_obj_drop(n);
	return 0;
}
