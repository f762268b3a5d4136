/* A program the 6.18 kernel's verifier WARNs on (never load it):
 * bpf_refcount_acquire of an allocated object whose struct has no special
 * field at all, so no btf_struct_meta: check_kfunc_args'
 * KF_ARG_PTR_TO_REFCOUNTED_KPTR case finds no record and reports
 * "verifier bug: Couldn't find btf_record" (EFAULT, a kernel warning that
 * taints the kernel). vercheck must say unsupported with ErrKernelFault
 * (found by vercheck-mutate, seed 20261331, mutant 22251.1).
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c refcount_no_record.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_refcount_acquire_impl(void *kptr, void *meta) __ksym;

struct rn_plain {
	__u64 a;
};

SEC("tc")
int refcount_no_record(struct __sk_buff *skb)
{
	struct rn_plain *o = bpf_obj_new_impl(bpf_core_type_id_local(struct rn_plain), NULL);
	struct rn_plain *r;

	if (!o)
		return 0;
	r = bpf_refcount_acquire_impl(o, NULL);
	if (r)
		bpf_obj_drop_impl(r, NULL);
	bpf_obj_drop_impl(o, NULL);
	return 0;
}
