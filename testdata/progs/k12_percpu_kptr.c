#include "progs.h"
#include <bpf/bpf_core_read.h>

/* bpf_kptr_xchg into per-CPU and plain kptrs. A per-CPU kptr reads back as
 * per-CPU memory, so a kernel with the kptr-percpu-match stable fix wants
 * a per-CPU object (MEM_PERCPU) in it, and refuses a plain one before it
 * looks at the struct: map_kptr_match_type's message then names no struct
 * ("type=ptr_"). Without the fix (6.18.44-fc-v973) a plain object of the
 * kptr's struct goes in, and one of another struct is refused by name. A
 * per-CPU object never goes into a plain kptr (its flag is not one the
 * kptr permits), with or without the fix. */

extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define __percpu_kptr __attribute__((btf_type_tag("percpu_kptr")))
#define bpf_percpu_obj_new(type) ((type __percpu_kptr *)bpf_percpu_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_percpu_obj_drop(kptr) bpf_percpu_obj_drop_impl(kptr, NULL)
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct k12_pv {
	long a, b;
};

struct k12_pother {
	long a, b, c;
};

struct k12_pelem {
	struct k12_pv __percpu_kptr *pc;
	struct k12_pv __kptr *plain;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_pelem);
} k12_pelems SEC(".maps");

static __always_inline struct k12_pelem *k12_plookup(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&k12_pelems, &k);
}

/* The well-formed exchanges. */
// vercheck: accept
SEC("tc")
int k12_pkptr_ok(struct __sk_buff *skb)
{
	struct k12_pelem *e = k12_plookup();
	struct k12_pv __percpu_kptr *p;
	struct k12_pv *q;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct k12_pv);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop(p);
	q = bpf_obj_new(struct k12_pv);
	if (!q)
		return 0;
	q = bpf_kptr_xchg(&e->plain, q);
	if (q)
		bpf_obj_drop(q);
	return 0;
}

/* A plain object of the kptr's struct into a per-CPU kptr; what comes back
 * is per-CPU, dropped as such. */
// vercheck: reject "invalid kptr access, R2 type=ptr_ expected=ptr_k12_pv"
// vercheck: accept without kptr-percpu-match
SEC("tc")
int k12_pkptr_plain_in(struct __sk_buff *skb)
{
	struct k12_pelem *e = k12_plookup();
	struct k12_pv *p;

	if (!e)
		return 0;
	p = bpf_obj_new(struct k12_pv);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A plain object of another struct: the flag is checked first. */
// vercheck: reject "invalid kptr access, R2 type=ptr_ expected=ptr_k12_pv"
// vercheck: reject "invalid kptr access, R2 type=ptr_k12_pother expected=ptr_k12_pv" without kptr-percpu-match
SEC("tc")
int k12_pkptr_plain_other_in(struct __sk_buff *skb)
{
	struct k12_pelem *e = k12_plookup();
	struct k12_pother *p;

	if (!e)
		return 0;
	p = bpf_obj_new(struct k12_pother);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A per-CPU object into a plain kptr. */
// vercheck: reject "invalid kptr access, R2 type=percpu_ptr_ expected=ptr_k12_pv"
SEC("tc")
int k12_pkptr_percpu_in_plain(struct __sk_buff *skb)
{
	struct k12_pelem *e = k12_plookup();
	struct k12_pv __percpu_kptr *p;

	if (!e)
		return 0;
	p = bpf_percpu_obj_new(struct k12_pv);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->plain, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A per-CPU object taken out of the map goes back in. */
// vercheck: accept
SEC("tc")
int k12_pkptr_back_in(struct __sk_buff *skb)
{
	struct k12_pelem *e = k12_plookup();
	struct k12_pv __percpu_kptr *p;

	if (!e)
		return 0;
	p = bpf_kptr_xchg(&e->pc, NULL);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A plain object taken out of the plain kptr into the per-CPU one. */
// vercheck: reject "invalid kptr access, R2 type=ptr_ expected=ptr_k12_pv"
// vercheck: accept without kptr-percpu-match
SEC("tc")
int k12_pkptr_moved(struct __sk_buff *skb)
{
	struct k12_pelem *e = k12_plookup();
	struct k12_pv *p;

	if (!e)
		return 0;
	p = bpf_kptr_xchg(&e->plain, NULL);
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A per-CPU object loaded from the map (not exchanged): no reference to
 * give, refused with or without the fix. */
// vercheck: reject "R2 type=percpu_rcu_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("tc")
int k12_pkptr_loaded_in(struct __sk_buff *skb)
{
	struct k12_pelem *e = k12_plookup();
	struct k12_pv __percpu_kptr *p;

	if (!e)
		return 0;
	p = e->pc;
	if (!p)
		return 0;
	p = bpf_kptr_xchg(&e->pc, p);
	if (p)
		bpf_percpu_obj_drop(p);
	return 0;
}

/* A per-CPU kptr to a kernel struct (btf_parse_kptr finds task_struct in
 * vmlinux): a task, never per-CPU, goes in only without the fix, where the
 * struct alone is matched. The stablefix probe of kptr-percpu-match. */
struct task_struct {
	int pid;
};

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

struct k12_ptask {
	struct task_struct __percpu_kptr *t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_ptask);
} k12_ptasks SEC(".maps");

// vercheck: reject "invalid kptr access, R2 type=ptr_ expected=ptr_task_struct"
// vercheck: accept without kptr-percpu-match
SEC("tc")
int k12_pkptr_task_in(struct __sk_buff *skb)
{
	struct task_struct *t = bpf_task_from_pid(1);
	struct k12_ptask *e;
	int k = 0;

	if (!t)
		return 0;
	e = bpf_map_lookup_elem(&k12_ptasks, &k);
	if (!e) {
		bpf_task_release(t);
		return 0;
	}
	t = bpf_kptr_xchg(&e->t, t);
	if (t)
		bpf_task_release(t);
	return 0;
}

char _license[] SEC("license") = "GPL";
