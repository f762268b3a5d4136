#include "progs.h"
#include <bpf/bpf_core_read.h>

/* What bpf_kptr_xchg leaves of the pointer it moves into a map. The map now
 * owns the object and the program's copies of the pointer are released, as
 * for any release: they become scalars. A per-CPU allocated object is the
 * exception inside an RCU read section (a non-sleepable program is always
 * in one): the map frees it only after a grace period, so the copies become
 * untracked RCU pointers (percpu_rcu_ptr_), still good for bpf_this_cpu_ptr
 * and bpf_per_cpu_ptr, but no longer an owned object bpf_kptr_xchg could
 * move again. */

extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define __percpu_kptr __attribute__((btf_type_tag("percpu_kptr")))
#define bpf_percpu_obj_new(type) ((type __percpu_kptr *)bpf_percpu_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_percpu_obj_drop(kptr) bpf_percpu_obj_drop_impl(kptr, NULL)
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct s21_pv {
	long a, b;
};

struct s21_elem {
	struct s21_pv __percpu_kptr *pc;
	struct s21_pv __kptr *plain;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s21_elem);
} s21_elems SEC(".maps");

static __always_inline struct s21_elem *s21_lookup(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&s21_elems, &k);
}

/* The copy kept after the exchange still reaches this CPU's copy. */
// vercheck: accept
SEC("tc")
int s21_xchg_then_this_cpu(struct __sk_buff *skb)
{
	struct s21_elem *e = s21_lookup();
	struct s21_pv __percpu_kptr *p, *old;
	struct s21_pv *v;
	long r = 0;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct s21_pv);
	if (!p)
		return 0;
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	v = bpf_this_cpu_ptr(p);
	r = v->a;
	return r & 1;
}

/* Moving it again: it is not owned any more. */
// vercheck: reject "R2 type=percpu_rcu_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("tc")
int s21_xchg_twice(struct __sk_buff *skb)
{
	struct s21_elem *e = s21_lookup();
	struct s21_pv __percpu_kptr *p, *old;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct s21_pv);
	if (!p)
		return 0;
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	return 0;
}

/* Nor can it be dropped. */
// vercheck: reject "R1 must be referenced or trusted"
SEC("tc")
int s21_xchg_then_drop(struct __sk_buff *skb)
{
	struct s21_elem *e = s21_lookup();
	struct s21_pv __percpu_kptr *p, *old;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct s21_pv);
	if (!p)
		return 0;
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	bpf_percpu_obj_drop(p);
	return 0;
}

/* A plain allocated object's copy is released to a scalar. */
// vercheck: reject "R7 invalid mem access 'scalar'"
SEC("tc")
int s21_plain_xchg_then_read(struct __sk_buff *skb)
{
	struct s21_elem *e = s21_lookup();
	struct s21_pv *q, *old;

	if (!e)
		return 0;
	q = bpf_obj_new(struct s21_pv);
	if (!q)
		return 0;
	old = bpf_kptr_xchg(&e->plain, q);
	if (old)
		bpf_obj_drop(old);
	return q->a & 1;
}

/* A sleepable program outside an RCU read section: the per-CPU object's
 * copy is released to a scalar too. */
// vercheck: reject "R1 type=scalar expected=percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_"
SEC("syscall")
int s21_sleepable_xchg_then_this_cpu(void *ctx)
{
	struct s21_elem *e = s21_lookup();
	struct s21_pv __percpu_kptr *p, *old;
	struct s21_pv *v;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct s21_pv);
	if (!p)
		return 0;
	old = bpf_kptr_xchg(&e->pc, p);
	if (old)
		bpf_percpu_obj_drop(old);
	v = bpf_this_cpu_ptr(p);
	return v->a & 1;
}

char _license[] SEC("license") = "GPL";
