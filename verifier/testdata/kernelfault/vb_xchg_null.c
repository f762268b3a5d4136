/* A program the 6.18 kernel's verifier WARNs on (never load it): an
 * allocated object that may be NULL moved into a kptr with bpf_kptr_xchg.
 * check_reg_type has no case for a maybe-NULL allocated object and reports
 * "verifier bug: invalid PTR_TO_BTF_ID register for type match" with a
 * kernel warning (EFAULT), which taints the kernel. vercheck must say
 * unsupported with ErrKernelFault (the fuzzer's oracle loaded it while
 * vercheck rejected it as an ordinary error).
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c vb_xchg_null.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define __kptr __attribute__((btf_type_tag("kptr")))

struct vb_inner {
	__u64 v;
};

struct vb_outer {
	__u64 plain;
	struct vb_inner __kptr *in;
};

SEC("tc")
int vb_xchg_null(struct __sk_buff *skb)
{
	struct vb_outer *o = bpf_obj_new_impl(bpf_core_type_id_local(struct vb_outer), NULL);
	struct vb_inner *i, *old;

	if (!o)
		return 0;
	/* i is not checked for NULL before the exchange. */
	i = bpf_obj_new_impl(bpf_core_type_id_local(struct vb_inner), NULL);
	old = bpf_kptr_xchg(&o->in, i);
	if (old)
		bpf_obj_drop_impl(old, NULL);
	bpf_obj_drop_impl(o, NULL);
	return 0;
}

char _license[] SEC("license") = "GPL";
