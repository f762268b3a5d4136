#include "progs.h"

/* Kptrs in map values: a "kptr_untrusted" field takes stores of a pointer
 * to its struct (or NULL) and loads as an untrusted pointer; a "kptr" field
 * owns a reference, moved in and out only by bpf_kptr_xchg (which releases
 * the reference given and acquires the one taken out), and loads as an RCU
 * pointer inside an RCU read section for RCU-protected structs such as
 * task_struct, untrusted otherwise. Loads and stores must be exactly the
 * 8-byte field; helpers may not touch it. */

#define __kptr __attribute__((btf_type_tag("kptr")))
#define __kptr_untrusted __attribute__((btf_type_tag("kptr_untrusted")))

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct cgroup {
	int level;
} __attribute__((preserve_access_index));

struct bpf_iter_meta {
	void *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct val {
	struct task_struct __kptr *t;
	struct task_struct __kptr_untrusted *u;
	__u64 x;
	struct cgroup __kptr *c;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, struct val);
} m SEC(".maps");

struct locked_val {
	struct bpf_spin_lock l;
	struct task_struct __kptr *t;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, struct locked_val);
} locked SEC(".maps");

/* The value of key 0, or NULL. */
static __always_inline struct val *lookup_val(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&m, &k);
}

/* The same in inline assembly: r0 is the value, l0 is where NULL goes. */
#define LOOKUP_VAL_ASM \
	"r1 = 0;" \
	"*(u32 *)(r10 - 4) = r1;" \
	"r2 = r10;" \
	"r2 += -4;" \
	"r1 = %[m] ll;" \
	"call %[bpf_map_lookup_elem];" \
	"if r0 == 0 goto l0_%=;"

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern struct cgroup *bpf_cgroup_from_id(__u64 id) __ksym;
extern void bpf_cgroup_release(struct cgroup *p) __ksym;

// vercheck: accept
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_ok(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0], *old;
	struct val *v = lookup_val();
	if (!v)
		return 0;
	task = bpf_task_acquire(task);
	if (!task)
		return 0;
	old = bpf_kptr_xchg(&v->t, task);
	if (old)
		bpf_task_release(old);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_leak(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	if (!v)
		return 0;
	bpf_kptr_xchg(&v->t, 0);
	return 0;
}

// vercheck: reject "R2 must be referenced when passed to release function"
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_unref(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	struct val *v = lookup_val();
	if (!v)
		return 0;
	bpf_kptr_xchg(&v->t, task);
	return 0;
}

// vercheck: reject "off=8 kptr isn't referenced kptr"
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_untrusted_field(unsigned long long *ctx)
{
	struct task_struct *old;
	struct val *v = lookup_val();
	if (!v)
		return 0;
	old = bpf_kptr_xchg(&v->u, 0);
	if (old) bpf_task_release(old);
	return 0;
}

// vercheck: accept
SEC("tp_btf/task_newtask")
int mod_kptr_store_unref_ok(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	struct val *v = lookup_val();
	if (!v)
		return 0;
	v->u = task;
	return 0;
}

// vercheck: reject "store to referenced kptr disallowed"
SEC("tp_btf/task_newtask")
int mod_kptr_store_ref_bad(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	struct val *v = lookup_val();
	if (!v)
		return 0;
	v->t = task;
	return 0;
}

// vercheck: accept
SEC("tp_btf/task_newtask")
int mod_kptr_load_ref(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	struct task_struct *t;
	if (!v)
		return 0;
	t = v->t;
	if (!t)
		return 0;
	return t->pid == 1;
}

// vercheck: accept
SEC("tp_btf/task_newtask")
int mod_kptr_load_ref_acquire(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	struct task_struct *t;
	if (!v)
		return 0;
	t = v->t;
	if (!t)
		return 0;
	t = bpf_task_acquire(t);
	if (t)
		bpf_task_release(t);
	return 0;
}

// vercheck: reject "R1 must be a rcu pointer"
SEC("tp_btf/task_newtask")
int mod_kptr_load_unref_acquire(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	struct task_struct *t;
	if (!v)
		return 0;
	t = v->u;
	if (!t)
		return 0;
	t = bpf_task_acquire(t);
	if (t)
		bpf_task_release(t);
	return 0;
}

// vercheck: reject "kptr access size must be BPF_DW"
SEC("tp_btf/task_newtask")
__naked int mod_kptr_narrow_load(void)
{
	asm volatile(
		LOOKUP_VAL_ASM
		"r0 = *(u32 *)(r0 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		: : __imm_addr(m), __imm(bpf_map_lookup_elem) : __clobber_all);
}

// vercheck: reject "BPF_ST imm must be 0 when storing to kptr at off=8"
SEC("tp_btf/task_newtask")
__naked int mod_kptr_st_imm(void)
{
	asm volatile(
		LOOKUP_VAL_ASM
		"*(u64 *)(r0 + 8) = 1;"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		: : __imm_addr(m), __imm(bpf_map_lookup_elem) : __clobber_all);
}

// vercheck: accept
SEC("tp_btf/task_newtask")
__naked int mod_kptr_st_imm0(void)
{
	asm volatile(
		LOOKUP_VAL_ASM
		"*(u64 *)(r0 + 8) = 0;"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		: : __imm_addr(m), __imm(bpf_map_lookup_elem) : __clobber_all);
}

// vercheck: reject "kptr cannot be accessed indirectly by helper"
SEC("tp_btf/task_newtask")
int mod_kptr_helper_access(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	if (!v)
		return 0;
	bpf_probe_read_kernel(v, 16, 0);
	return 0;
}

// vercheck: reject "off=16 doesn't point to kptr"
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_off(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	if (!v)
		return 0;
	bpf_kptr_xchg(&v->x, 0);
	return 0;
}
/* A sleepable program reads the referenced kptr as untrusted outside an
 * RCU read section, as an RCU pointer inside one. */
// vercheck: reject "R1 must be a rcu pointer"
SEC("iter.s/task")
int mod_kptr_sleep_load(struct bpf_iter__task *ctx)
{
	struct val *v = lookup_val();
	struct task_struct *t;
	if (!v)
		return 0;
	t = v->t;
	if (!t)
		return 0;
	t = bpf_task_acquire(t);
	if (t)
		bpf_task_release(t);
	return 0;
}

// vercheck: accept
SEC("iter.s/task")
int mod_kptr_sleep_load_rcu(struct bpf_iter__task *ctx)
{
	struct val *v = lookup_val();
	struct task_struct *t;
	if (!v)
		return 0;
	bpf_rcu_read_lock();
	t = v->t;
	if (t) {
		t = bpf_task_acquire(t);
		if (t)
			bpf_task_release(t);
	}
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "invalid kptr access, R2 type=ptr_cgroup expected=ptr_task_struct"
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_wrong_type(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	struct cgroup *c, *old;
	if (!v)
		return 0;
	c = bpf_cgroup_from_id(1);
	if (!c)
		return 0;
	old = bpf_kptr_xchg(&v->t, c);
	if (old)
		bpf_cgroup_release(old);
	return 0;
}

// vercheck: reject "invalid kptr access, R1 type=scalar expected=ptr_task_struct or untrusted_ptr_task_struct"
SEC("tp_btf/task_newtask")
int mod_kptr_store_unref_wrong(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	if (!v)
		return 0;
	v->u = (void *)ctx[1];
	return 0;
}

// vercheck: reject "R1 type=fp expected=map_value, ptr_"
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_stack(unsigned long long *ctx)
{
	struct task_struct *p = 0;
	bpf_kptr_xchg(&p, 0);
	return 0;
}

// vercheck: reject "kptr access cannot have variable offset"
SEC("tp_btf/task_newtask")
int mod_kptr_var_off(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	if (!v)
		return 0;
	__u64 i = ctx[1] & 8;
	return *(__u64 *)((char *)v + i) != 0;
}

// vercheck: reject "kptr access misaligned expected=0 off=4"
SEC("tp_btf/task_newtask")
__naked int mod_kptr_misaligned(void)
{
	asm volatile(
		LOOKUP_VAL_ASM
		"r0 = *(u64 *)(r0 + 4);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		: : __imm_addr(m), __imm(bpf_map_lookup_elem) : __clobber_all);
}

// vercheck: reject "kptr in map can only be accessed using BPF_MEM instruction mode"
SEC("tp_btf/task_newtask")
__naked int mod_kptr_atomic_kptr(void)
{
	asm volatile(
		LOOKUP_VAL_ASM
		"r1 = 0;"
		"lock *(u64 *)(r0 + 8) += r1;"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		: : __imm_addr(m), __imm(bpf_map_lookup_elem) : __clobber_all);
}

/* A referenced kptr to a cgroup. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int mod_kptr_xchg_cgroup(unsigned long long *ctx)
{
	struct val *v = lookup_val();
	struct cgroup *c, *old;
	if (!v)
		return 0;
	c = bpf_cgroup_from_id(1);
	if (!c)
		return 0;
	old = bpf_kptr_xchg(&v->c, c);
	if (old)
		bpf_cgroup_release(old);
	return 0;
}
/* 6.18 allows no bpf_kptr_xchg under a spin lock. */
// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int mod_kptr_xchg_locked(struct __sk_buff *ctx)
{
	int k = 0;
	struct locked_val *v = bpf_map_lookup_elem(&locked, &k);
	struct task_struct *old;

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	old = bpf_kptr_xchg(&v->t, 0);
	bpf_spin_unlock(&v->l);
	if (old)
		bpf_task_release(old);
	return 0;
}

char _license[] SEC("license") = "GPL";
