/* bpf_kptr_xchg looks for a kptr of the kinds it exchanges (BPF_KPTR:
 * untrusted, referenced, per-CPU), never a uptr: a value whose only
 * special pointer is a uptr has "no valid kptr", and a uptr beside a kptr
 * is not one ("doesn't point to kptr"), where it would otherwise be found
 * and refused as no referenced kptr (the fuzz run of seed 20261301,
 * mutant 10261.1 of task_ls_uptr). */
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __uptr __attribute__((btf_type_tag("uptr")))
#define __kptr __attribute__((btf_type_tag("kptr")))

struct task_struct {};

extern void bpf_task_release(struct task_struct *p) __ksym;

struct f13_user_data {
	long a;
	long b;
};

/* Keeps the full struct in the BTF (see p9_uptr.c). */
struct f13_user_data f13_uptr_anchor;

struct f13_uptr_only {
	long cnt;
	struct f13_user_data __uptr *udata;
};

struct f13_uptr_kptr {
	struct f13_user_data __uptr *udata;
	struct task_struct __kptr *task;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct f13_uptr_only);
} f13_uptr_only_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct f13_uptr_kptr);
} f13_uptr_kptr_map SEC(".maps");

static void *(*get_current_task_btf)(void) = (void *)158;
static void *(*task_storage_get)(void *map, void *task, void *value, __u64 flags) = (void *)156;
static void *(*kptr_xchg)(void *dst, void *ptr) = (void *)194;

/* The value's only special pointer is a uptr. */
// vercheck: reject "R1 has no valid kptr"
SEC("tp_btf/sched_switch")
int f13_uptr_xchg_only(void *ctx)
{
	struct f13_uptr_only *v = task_storage_get(&f13_uptr_only_map, get_current_task_btf(), 0, 0);

	if (!v)
		return 0;
	kptr_xchg(&v->udata, 0);
	return 0;
}

/* A uptr at offset 0 beside a kptr at offset 8. */
// vercheck: reject "off=0 doesn't point to kptr"
SEC("tp_btf/sched_switch")
int f13_uptr_xchg_beside_kptr(void *ctx)
{
	struct f13_uptr_kptr *v = task_storage_get(&f13_uptr_kptr_map, get_current_task_btf(), 0, 0);

	if (!v)
		return 0;
	kptr_xchg(&v->udata, 0);
	return 0;
}

/* The kptr beside it is exchanged. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int f13_uptr_xchg_kptr(void *ctx)
{
	struct f13_uptr_kptr *v = task_storage_get(&f13_uptr_kptr_map, get_current_task_btf(), 0, 0);
	struct task_struct *old;

	if (!v)
		return 0;
	old = kptr_xchg(&v->task, 0);
	if (old)
		bpf_task_release(old);
	return 0;
}
