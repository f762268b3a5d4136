#include "progs.h"
#include <bpf/bpf_core_read.h>

/* A pointer member of an allocated object (bpf_obj_new) that points to
 * anything but a struct reads as read-only untrusted memory of size 0
 * (btf_struct_walk's WALK_PTR_UNTRUSTED, which btf_struct_access turns into
 * PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED whatever the object); a pointer
 * to a struct reads as a scalar. (linked_list_fail.c's ptr_walk_scalar.) */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct p7_node {
	__u64 v;
};

struct p7_holder {
	__u64 *ip;
	struct p7_node *np;
};

/* Both members read fine; the struct pointer is a plain number. */
// vercheck: accept
SEC("tc")
int p7_alloc_read_ptrs(struct __sk_buff *skb)
{
	struct p7_holder *h = bpf_obj_new(struct p7_holder);
	long r;

	if (!h)
		return 0;
	r = h->ip ? 1 : 0;
	if (h->np)
		r += 2;
	bpf_obj_drop(h);
	return r;
}

/* The memory behind the non-struct pointer is untrusted: its reads are
 * probe reads, allowed whatever the size. */
// vercheck: accept
SEC("tc")
int p7_alloc_deref_ptr(struct __sk_buff *skb)
{
	struct p7_holder *h = bpf_obj_new(struct p7_holder);
	__u64 *ip;
	long r = 0;

	if (!h)
		return 0;
	ip = h->ip;
	if (ip)
		r = *ip;
	bpf_obj_drop(h);
	return r;
}

/* Nor is it a per-CPU pointer. */
// vercheck: reject "R1 type=rdonly_untrusted_mem expected=percpu_ptr_"
SEC("tc")
int p7_alloc_ptr_percpu(struct __sk_buff *skb)
{
	struct p7_holder *h = bpf_obj_new(struct p7_holder);

	if (!h)
		return 0;
	bpf_this_cpu_ptr(h->ip);
	bpf_obj_drop(h);
	return 0;
}

char _license[] SEC("license") = "GPL";
