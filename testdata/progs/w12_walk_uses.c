#include "progs.h"
#include <bpf/bpf_core_read.h>

/* What a program may still do with the untrusted pointer a walk gives
 * (walk-untrusted): read through it (probe reads), hand it to
 * bpf_probe_read_kernel or bpf_rdonly_cast, compare it; not pass it where
 * a plain BTF pointer is taken. A KF_RCU kfunc takes neither kind. */

struct task_struct {
	int pid;
	struct task_struct *parent;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	void *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))

// vercheck: accept
SEC("iter/task")
int w12_read_through(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	return t && t->parent->parent->pid == 1;
}

// vercheck: accept
SEC("iter/task")
int w12_probe_read(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	int pid = 0;

	if (t)
		bpf_probe_read_kernel(&pid, sizeof(pid), &t->parent->pid);
	return pid == 1;
}

/* An untrusted pointer may be NULL: both edges of the test are walked. */
// vercheck: accept
SEC("iter/task")
int w12_compare(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task, *p;

	if (!t)
		return 0;
	p = t->parent;
	if (p == t)
		return 1;
	if (!p)
		return 0;
	return p->pid == 1;
}

// vercheck: accept
SEC("iter/task")
int w12_rdonly_cast(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task, *p;

	if (!t)
		return 0;
	p = bpf_rdonly_cast(t->parent, bpf_core_type_id_kernel(struct task_struct));
	return p->pid == 1;
}

// vercheck: reject "R1 must be a rcu pointer"
SEC("iter/task")
int w12_acquire(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task, *p;

	if (!t)
		return 0;
	p = bpf_task_acquire(t->parent);
	if (p)
		bpf_task_release(p);
	return 0;
}

__noinline int w12_trusted_pid(struct task_struct *t __arg_trusted)
{
	return t->pid;
}

/* Refused by either fix: walk-untrusted makes the parent untrusted,
 * global-arg-trusted refuses the plain parent of a kernel without it (a
 * kernel lacking both takes it). */
// vercheck: reject "Caller passes invalid args into func#1 ('w12_trusted_pid')"
SEC("iter/task")
int w12_global_trusted(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		w12_trusted_pid(t->parent);
	return 0;
}

/* A sleepable program: the parent read inside an RCU read section stays
 * what it is when the section ends, untrusted or (without the fix) plain;
 * only RCU pointers turn untrusted there. */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter.s/task")
int w12_after_unlock(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task, *p;

	if (!t)
		return 0;
	bpf_rcu_read_lock();
	p = t->parent;
	bpf_rcu_read_unlock();
	bpf_task_pt_regs(p);
	return 0;
}

char _license[] SEC("license") = "GPL";
