#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Per-CPU objects of bpf_percpu_obj_new and per-CPU kptrs in map values:
 * an object is dropped with bpf_percpu_obj_drop, never read directly, and
 * reached one CPU's copy at a time through bpf_per_cpu_ptr or
 * bpf_this_cpu_ptr once it is loaded from a map (an RCU-protected per-CPU
 * pointer). bpf_kptr_xchg takes it out of the map as an object the
 * program owns. */

extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define __percpu_kptr __attribute__((btf_type_tag("percpu_kptr")))
#define bpf_percpu_obj_new(type) ((type __percpu_kptr *)bpf_percpu_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_percpu_obj_drop(kptr) bpf_percpu_obj_drop_impl(kptr, NULL)
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct pc_val {
	long a, b;
	int arr[4];
	struct {
		char c;
	} in;
};

struct pc_other {
	long a, b;
};

struct pc_ptrs {
	long a;
	void *p;
};

struct pc_big {
	long a[65];
};

struct pc_locked {
	long a;
	struct bpf_spin_lock lock;
};

struct pc_elem {
	long sum;
	struct pc_val __percpu_kptr *pc;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct pc_elem);
} pc_elems SEC(".maps");

static __always_inline struct pc_elem *pc_lookup(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&pc_elems, &k);
}

// vercheck: accept
SEC("tc")
int pc_pobj_new_drop(struct __sk_buff *skb)
{
	struct pc_val __percpu_kptr *p = bpf_percpu_obj_new(struct pc_val);

	if (!p)
		return 0;
	bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int pc_pobj_leak(struct __sk_buff *skb)
{
	struct pc_val __percpu_kptr *p = bpf_percpu_obj_new(struct pc_val);

	return p != 0;
}

// vercheck: reject "R0 is ptr_pc_val access percpu memory: off=8"
SEC("tc")
int pc_pobj_direct(struct __sk_buff *skb)
{
	struct pc_val __percpu_kptr *p = bpf_percpu_obj_new(struct pc_val);

	if (!p)
		return 0;
	p->b = 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "arg#0 expected for bpf_percpu_obj_drop_impl()"
SEC("tc")
int pc_pobj_plain_drop(struct __sk_buff *skb)
{
	struct pc_val __percpu_kptr *p = bpf_percpu_obj_new(struct pc_val);

	if (!p)
		return 0;
	bpf_obj_drop(p);
	return 0;
}

// vercheck: reject "arg#0 expected for bpf_obj_drop_impl()"
SEC("tc")
int pc_pobj_percpu_drop_plain(struct __sk_buff *skb)
{
	struct pc_val *p = bpf_obj_new(struct pc_val);

	if (!p)
		return 0;
	bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "bpf_percpu_obj_new type ID argument must be of a struct of scalars"
SEC("tc")
int pc_pobj_pointer_member(struct __sk_buff *skb)
{
	struct pc_ptrs __percpu_kptr *p = bpf_percpu_obj_new(struct pc_ptrs);

	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "bpf_percpu_obj_new type size (520) is greater than 512"
SEC("tc")
int pc_pobj_too_big(struct __sk_buff *skb)
{
	struct pc_big __percpu_kptr *p = bpf_percpu_obj_new(struct pc_big);

	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "bpf_percpu_obj_new type ID argument must not contain special fields"
SEC("tc")
int pc_pobj_lock(struct __sk_buff *skb)
{
	struct pc_locked __percpu_kptr *p = bpf_percpu_obj_new(struct pc_locked);

	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "R1 type=percpu_ptr_ expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_"
SEC("tc")
int pc_pobj_this_cpu_owned(struct __sk_buff *skb)
{
	struct pc_val __percpu_kptr *p = bpf_percpu_obj_new(struct pc_val);
	struct pc_val *v;

	if (!p)
		return 0;
	v = bpf_this_cpu_ptr(p);
	v->a = 1;
	bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: accept
SEC("tc")
int pc_pkptr_this_cpu(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;
	struct pc_val *v;

	if (!e)
		return 0;
	p = e->pc;
	if (!p)
		return 0;
	v = bpf_this_cpu_ptr(p);
	v->a += skb->len;
	v->arr[3] = v->in.c;
	return v->b;
}

// vercheck: accept
SEC("tc")
int pc_pkptr_per_cpu(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;
	struct pc_val *v;

	if (!e)
		return 0;
	p = e->pc;
	if (!p)
		return 0;
	v = bpf_per_cpu_ptr(p, skb->len);
	v->b = 2;
	return 0;
}

// vercheck: reject "R1 type=percpu_rcu_ptr_or_null_ expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_"
SEC("tc")
int pc_pkptr_unchecked(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val *v;

	if (!e)
		return 0;
	v = bpf_this_cpu_ptr(e->pc);
	return v->a;
}

// vercheck: reject "R1 is ptr_pc_val access percpu memory: off=0"
SEC("tc")
int pc_pkptr_direct(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;

	if (!e)
		return 0;
	p = e->pc;
	if (!p)
		return 0;
	return p->a;
}

// vercheck: reject "store to referenced kptr disallowed"
SEC("tc")
int pc_pkptr_store(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct pc_val);
	e->pc = p;
	return 0;
}

// vercheck: accept
SEC("tc")
int pc_pkptr_take(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;

	if (!e)
		return 0;
	p = bpf_kptr_xchg(&e->pc, NULL);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "arg#0 expected for bpf_percpu_obj_drop_impl()"
SEC("tc")
int pc_pkptr_take_plain_drop(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;

	if (!e)
		return 0;
	p = bpf_kptr_xchg(&e->pc, NULL);
	if (p)
		bpf_obj_drop(p);
	return 0;
}

// vercheck: reject "invalid kptr access, R2 type=percpu_ptr_pc_other expected=ptr_pc_val"
SEC("tc")
int pc_pkptr_put_other_type(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_other __percpu_kptr *p;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct pc_other);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A kernel with the kptr-percpu-match stable fix refuses a plain object in
 * a per-CPU kptr at the exchange. Without it (6.18.44-fc-v973) a plain
 * object of the kptr's type goes in (libbpf: one BTF object); what comes
 * back is per-CPU memory, which bpf_obj_drop does not take. */
// vercheck: reject "invalid kptr access, R2 type=ptr_ expected=ptr_pc_val"
// vercheck: reject "arg#0 expected for bpf_percpu_obj_drop_impl()" without kptr-percpu-match
SEC("tc")
int pc_pkptr_put_not_percpu(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val *p;

	if (!e)
		return 0;
	p = bpf_obj_new(struct pc_val);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_obj_drop(p);
	return 0;
}

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

// vercheck: reject "R1 type=untrusted_ptr_ expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_"
SEC("syscall")
int pc_pkptr_sleepable_untrusted(void *ctx)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;
	struct pc_val *v;

	if (!e)
		return 0;
	p = e->pc;
	if (!p)
		return 0;
	v = bpf_this_cpu_ptr(p);
	return v->a;
}

// vercheck: accept
SEC("syscall")
int pc_pkptr_sleepable_rcu(void *ctx)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;
	struct pc_val *v;
	int ret = 0;

	if (!e)
		return 0;
	bpf_rcu_read_lock();
	p = e->pc;
	if (p) {
		v = bpf_per_cpu_ptr(p, 0);
		ret = v->a;
	}
	bpf_rcu_read_unlock();
	return ret;
}

// vercheck: accept
SEC("syscall")
int pc_pobj_sleepable_new(void *ctx)
{
	struct pc_val __percpu_kptr *p = bpf_percpu_obj_new(struct pc_val);

	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

// vercheck: reject "access beyond struct pc_val at off 40 size 8"
SEC("tc")
int pc_pkptr_copy_beyond(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;
	struct pc_val *v;

	if (!e)
		return 0;
	p = e->pc;
	if (!p)
		return 0;
	v = bpf_this_cpu_ptr(p);
	*(volatile long *)((char *)v + 40) = 1;
	return 0;
}

// vercheck: reject "R1 must be referenced or trusted"
SEC("tc")
int pc_pkptr_drop_copy(struct __sk_buff *skb)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;
	struct pc_val *v;

	if (!e)
		return 0;
	p = e->pc;
	if (!p)
		return 0;
	v = bpf_this_cpu_ptr(p);
	bpf_percpu_obj_drop(v);
	return 0;
}

// vercheck: reject "only read is supported"
SEC("syscall")
int pc_pkptr_copy_after_unlock(void *ctx)
{
	struct pc_elem *e = pc_lookup();
	struct pc_val __percpu_kptr *p;
	struct pc_val *v;

	if (!e)
		return 0;
	bpf_rcu_read_lock();
	p = e->pc;
	if (!p) {
		bpf_rcu_read_unlock();
		return 0;
	}
	v = bpf_this_cpu_ptr(p);
	bpf_rcu_read_unlock();
	v->a = 1;
	return 0;
}

char _license[] SEC("license") = "GPL";
