#include "progs.h"

/* Which BTF walks give an untrusted pointer (walk-untrusted): every
 * pointer read through a BTF pointer that keeps neither trust nor RCU
 * protection. A kernel without the fix (6.18.0) gives a plain pointer
 * where the walk starts from a plain pointer, or from a trusted or RCU
 * one inside an RCU read section through a field the kernel does not list
 * as safe; bpf_task_pt_regs takes a plain pointer, not an untrusted one.
 * Fields the kernel lists (task_struct__safe_rcu: real_parent,
 * group_leader...) keep RCU protection either way. */

struct task_struct {
	int pid;
	struct task_struct *parent;
	struct task_struct *real_parent;
	struct task_struct *group_leader;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	void *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct file;

struct vm_area_struct {
	struct file *vm_file;
} __attribute__((preserve_access_index));

struct bpf_iter__task_vma {
	void *meta;
	struct task_struct *task;
	struct vm_area_struct *vma;
} __attribute__((preserve_access_index));

struct bpf_iter_task_vma {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task, __u64 addr) __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* A trusted task's parent, in a program that runs inside an RCU read
 * section. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter/task")
int w12_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_pt_regs(t->parent);
	return 0;
}

/* real_parent is listed: an RCU pointer. */
// vercheck: accept
SEC("iter/task")
int w12_real_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_pt_regs(t->real_parent);
	return 0;
}

/* From an RCU pointer as from a trusted one: RCU through a listed field,
 * untrusted through any other. */
// vercheck: accept
SEC("iter/task")
int w12_rcu_rcu(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_pt_regs(t->real_parent->group_leader);
	return 0;
}

// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter/task")
int w12_rcu_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_pt_regs(t->real_parent->parent);
	return 0;
}

/* An untrusted pointer's fields are untrusted, listed or not; 6.18.0's
 * plain pointer gives plain ones. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter/task")
int w12_parent_real_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_pt_regs(t->parent->real_parent);
	return 0;
}

/* A sleepable program inside bpf_rcu_read_lock walks as a non-sleepable
 * one. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter.s/task")
int w12_sleepable_rcu_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (!t)
		return 0;
	bpf_rcu_read_lock();
	bpf_task_pt_regs(t->parent);
	bpf_rcu_read_unlock();
	return 0;
}

/* Outside the section every unlisted walk is untrusted, on any kernel. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("iter.s/task")
int w12_sleepable_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_pt_regs(t->parent);
	return 0;
}

/* The task arguments of a tp_btf program are trusted. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("tp_btf/sched_switch")
int w12_tp_btf_parent(__u64 *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx[1];

	bpf_task_pt_regs(prev->parent);
	return 0;
}

/* So are a referenced task and the current task. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("tp_btf/sched_switch")
int w12_acquired_parent(__u64 *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (!t)
		return 0;
	bpf_task_pt_regs(t->parent);
	bpf_task_release(t);
	return 0;
}

// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("tp_btf/sched_switch")
int w12_current_parent(__u64 *ctx)
{
	bpf_task_pt_regs(bpf_get_current_task_btf()->parent);
	return 0;
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int w12_current_group_leader(__u64 *ctx)
{
	bpf_task_pt_regs(bpf_get_current_task_btf()->group_leader);
	return 0;
}

/* The vma of a task_vma iterator's context is a plain pointer: its file
 * is untrusted (plain without the fix). */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter/task_vma")
int w12_vma_file(struct bpf_iter__task_vma *ctx)
{
	struct vm_area_struct *vma = ctx->vma;

	if (vma)
		bpf_sock_from_file(vma->vm_file);
	return 0;
}

/* The vma of an open-coded vma iterator is trusted (untrusted on builds
 * with iter-next-untrusted); this kernel's BTF lists no vm_area_struct
 * field as safe, so its file is untrusted too. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted,iter-next-untrusted
SEC("iter/task")
int w12_iter_vma_file(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;

	if (!t)
		return 0;
	bpf_iter_task_vma_new(&it, t, 0);
	vma = bpf_iter_task_vma_next(&it);
	if (vma)
		bpf_sock_from_file(vma->vm_file);
	bpf_iter_task_vma_destroy(&it);
	return 0;
}

char _license[] SEC("license") = "GPL";
