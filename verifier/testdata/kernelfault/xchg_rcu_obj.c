/* A program the 6.18 kernel's verifier WARNs on (never load it): an
 * allocated object loaded from a local kptr inside an RCU section
 * (rcu_ptr_, MEM_ALLOC | MEM_RCU, checked not NULL) moved into a kptr with
 * bpf_kptr_xchg. It passes check_reg_type's compatibility test (the
 * allocation flags are dropped for bpf_kptr_xchg's source), but its
 * switch has a case for owned objects only: "verifier bug: invalid
 * PTR_TO_BTF_ID register for type match", a kernel warning (EFAULT). The
 * vb_xchg_null.c case without the NULL: vercheck must say unsupported
 * with ErrKernelFault (loaded once by vercheck --kernel, 6.18.44-fc-v1045,
 * which warned).
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c xchg_rcu_obj.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define __kptr __attribute__((btf_type_tag("kptr")))
#define __percpu_kptr __attribute__((btf_type_tag("percpu_kptr")))

extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;

struct xr_val {
	long a, b;
};

struct xr_elem {
	struct xr_val __percpu_kptr *pc;
	struct xr_val __kptr *plain;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct xr_elem);
} xr_elems SEC(".maps");

SEC("tc")
int xchg_rcu_obj(struct __sk_buff *skb)
{
	int k = 0;
	struct xr_elem *e = bpf_map_lookup_elem(&xr_elems, &k);
	struct xr_val *p;
	long v;

	/* Keeps struct xr_val whole in the BTF (not a forward declaration). */
	if (bpf_core_type_id_local(struct xr_val) == 0)
		return 1;
	if (!e)
		return 0;
	p = e->plain;
	if (!p)
		return 0;
	v = p->a;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop_impl(p, NULL);
	return v;
}

char _license[] SEC("license") = "GPL";
