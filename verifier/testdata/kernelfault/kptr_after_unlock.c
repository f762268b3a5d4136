/* A program the 6.18 kernel's verifier WARNs on (never load it): a local
 * kptr loaded inside an RCU read section is read after the section ends.
 * bpf_rcu_read_unlock makes the RCU-protected allocated object untrusted,
 * with no reference, and check_ptr_to_btf_access reports "verifier bug:
 * ref_obj_id for allocated object must be non-zero" (EFAULT, a kernel
 * warning that taints the kernel). vercheck must say unsupported with
 * ErrKernelFault (found by vercheck-mutate, seed 9921, mutant 8972).
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c kptr_after_unlock.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

#define __kptr __attribute__((btf_type_tag("kptr")))

struct ku_obj {
	__u64 a;
};

struct ku_val {
	struct ku_obj __kptr *owned;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct ku_val);
} ku_objs SEC(".maps");

SEC("syscall")
int ku_read_after_unlock(void *ctx)
{
	int k = 0;
	struct ku_val *v = bpf_map_lookup_elem(&ku_objs, &k);
	struct ku_obj *o;

	if (!v)
		return 0;
	bpf_rcu_read_lock();
	o = v->owned;
	bpf_rcu_read_unlock();
	if (o)
		return o->a;
	return 0;
}

/* A plain function, never linked into the program, keeps the object's
 * type in the BTF (bpf_obj_new's local type id). */
__attribute__((used, noinline)) static void ku_btf(void)
{
	struct ku_obj *o = bpf_obj_new_impl(bpf_core_type_id_local(struct ku_obj), NULL);

	if (o)
		bpf_obj_drop_impl(o, NULL);
}
