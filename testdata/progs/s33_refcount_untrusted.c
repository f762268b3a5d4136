// bpf_refcount_acquire takes an owning or non-owning reference to an
// allocated object (type_is_ptr_alloc_obj), never an untrusted one: a
// refcounted object loaded from a kptr inside an RCU read section is an
// RCU-protected allocated object, and bpf_rcu_read_unlock makes it
// untrusted, so acquiring it afterwards is "arg#0 is neither owning or
// non-owning ref" (EINVAL). vercheck looked at MEM_ALLOC alone and
// accepted. Found by sweeping the 7.3 selftests (refcounted_kptr_fail.c)
// against the live kernel (session 33).
#include "progs.h"
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_refcount_acquire_impl(void *kptr, void *meta) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))

struct bpf_refcount {
	__u32 __opaque[1];
} __attribute__((aligned(4)));

struct s33_rc_obj {
	__u64 a;
	struct bpf_refcount r;
};

struct s33_rc_val {
	struct s33_rc_obj __kptr *stashed;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s33_rc_val);
} s33_rc_map SEC(".maps");

/* A new object, which gives the struct its full BTF. */
// vercheck: accept
SEC("syscall")
int s33_rc_new_drop(void *ctx)
{
	struct s33_rc_obj *o = bpf_obj_new(struct s33_rc_obj);

	if (o)
		bpf_obj_drop(o);
	return 0;
}

/* Acquired inside the RCU read section: an RCU-protected allocated
 * object, which bpf_refcount_acquire takes. */
// vercheck: accept
SEC("syscall")
int s33_rc_acquire_in_rcu(void *ctx)
{
	struct s33_rc_val *v;
	struct s33_rc_obj *n, *ref = NULL;
	int k = 0;

	v = bpf_map_lookup_elem(&s33_rc_map, &k);
	if (!v)
		return 0;
	bpf_rcu_read_lock();
	n = v->stashed;
	if (n)
		ref = bpf_refcount_acquire_impl(n, NULL);
	bpf_rcu_read_unlock();
	if (ref)
		bpf_obj_drop(ref);
	return 0;
}

/* Acquired after the unlock: untrusted. */
// vercheck: reject "arg#0 is neither owning or non-owning ref"
SEC("syscall")
int s33_rc_acquire_after_rcu(void *ctx)
{
	struct s33_rc_val *v;
	struct s33_rc_obj *n, *ref;
	int k = 0;

	v = bpf_map_lookup_elem(&s33_rc_map, &k);
	if (!v)
		return 0;
	bpf_rcu_read_lock();
	n = v->stashed;
	if (!n) {
		bpf_rcu_read_unlock();
		return 0;
	}
	bpf_rcu_read_unlock();
	ref = bpf_refcount_acquire_impl(n, NULL);
	if (ref)
		bpf_obj_drop(ref);
	return 0;
}
