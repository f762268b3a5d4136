#include "progs.h"

/* A global function's arg:trusted argument takes only a trusted pointer
 * on this kernel (global-arg-trusted): referenced, or carrying only
 * trusted flags, NULL only where the argument is also arg:nullable.
 * Anything else is "R1 must be referenced or trusted" (EINVAL), then
 * "Caller passes invalid args". A kernel without the fix (6.18.0) type
 * checks the argument only: a plain or RCU pointer to the struct passes. */

char _license[] SEC("license") = "GPL";

#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#define __arg_nullable __attribute__((btf_decl_tag("arg:nullable")))

struct task_struct {
	int pid;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long vm_start;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	void *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct bpf_iter__task_vma {
	void *meta;
	struct task_struct *task;
	struct vm_area_struct *vma;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

__noinline int w12_vma_start(struct vm_area_struct *v __arg_trusted)
{
	return v->vm_start == 0;
}

__noinline int w12_task_pid(struct task_struct *t __arg_trusted)
{
	return t->pid == 1;
}

__noinline int w12_task_pid_or_null(struct task_struct *t __arg_trusted __arg_nullable)
{
	return t && t->pid == 1;
}

/* The vma of a task_vma iterator's context is a plain pointer. */
// vercheck: reject "Caller passes invalid args into func#1 ('w12_vma_start')"
// vercheck: accept without global-arg-trusted
SEC("iter/task_vma")
int w12_plain_arg(struct bpf_iter__task_vma *ctx)
{
	struct vm_area_struct *v = ctx->vma;

	if (v)
		w12_vma_start(v);
	return 0;
}

/* A task's real parent is an RCU pointer. */
// vercheck: reject "Caller passes invalid args into func#1 ('w12_task_pid')"
// vercheck: accept without global-arg-trusted
SEC("iter/task")
int w12_rcu_arg(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		w12_task_pid(t->real_parent);
	return 0;
}

// vercheck: accept
SEC("iter/task")
int w12_trusted_arg(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		w12_task_pid(t);
	return 0;
}

/* A referenced task is trusted. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int w12_referenced_arg(__u64 *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (t) {
		w12_task_pid(t);
		bpf_task_release(t);
	}
	return 0;
}

/* A pointer that may be NULL: refused by either rule where the argument
 * is not nullable, taken where it is. */
// vercheck: reject "Caller passes invalid args into func#1 ('w12_task_pid')"
SEC("iter/task")
int w12_maybe_null_arg(struct bpf_iter__task *ctx)
{
	w12_task_pid(ctx->task);
	return 0;
}

// vercheck: accept
SEC("iter/task")
int w12_nullable_arg(struct bpf_iter__task *ctx)
{
	w12_task_pid_or_null(ctx->task);
	return 0;
}
