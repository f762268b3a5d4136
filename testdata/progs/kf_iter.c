#include "progs.h"

/* Open-coded task, task_vma, css and css_task iterators. The kernel
 * structs are declared here with just the members these programs read;
 * CO-RE relocates the offsets against the running kernel. */

struct task_struct {
	int pid;
	struct task_struct *last_wakee;
	struct task_struct *group_leader;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long vm_start;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state {
	unsigned int flags;
} __attribute__((preserve_access_index));

struct cgroup {
	struct cgroup_subsys_state self;
} __attribute__((preserve_access_index));

struct bpf_iter_task {
	__u64 __opaque[3];
} __attribute__((aligned(8)));

struct bpf_iter_task_vma {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

struct bpf_iter_css {
	__u64 __opaque[3];
} __attribute__((aligned(8)));

struct bpf_iter_css_task {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task__nullable, unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym;
extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task, __u64 addr) __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;
extern int bpf_iter_css_new(struct bpf_iter_css *it, struct cgroup_subsys_state *start, unsigned int flags) __ksym;
extern struct cgroup_subsys_state *bpf_iter_css_next(struct bpf_iter_css *it) __ksym;
extern void bpf_iter_css_destroy(struct bpf_iter_css *it) __ksym;
extern int bpf_iter_css_task_new(struct bpf_iter_css_task *it, struct cgroup_subsys_state *css, unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_css_task_next(struct bpf_iter_css_task *it) __ksym;
extern void bpf_iter_css_task_destroy(struct bpf_iter_css_task *it) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern struct cgroup *bpf_cgroup_from_id(__u64 cgid) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

/* BPF_TASK_ITER_ALL_PROCS and BPF_CGROUP_ITER_DESCENDANTS_PRE. */
#define ALL_PROCS 0
#define DESCENDANTS_PRE 1

/* Sums the pids of every process; a NULL task is allowed (task__nullable). */
// vercheck: accept
SEC("socket")
int kf_iter_task_all(struct __sk_buff *skb)
{
	struct bpf_iter_task it;
	struct task_struct *t;
	int sum = 0;

	bpf_iter_task_new(&it, NULL, ALL_PROCS);
	while ((t = bpf_iter_task_next(&it)))
		sum += t->pid;
	bpf_iter_task_destroy(&it);
	return sum & 1;
}

/* The task iterator holds a reference until it is destroyed. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("socket")
int kf_iter_task_leak(struct __sk_buff *skb)
{
	struct bpf_iter_task it;
	struct task_struct *t;
	int n = 0;

	bpf_iter_task_new(&it, NULL, ALL_PROCS);
	while ((t = bpf_iter_task_next(&it)))
		n++;
	return n & 1;
}

/* next() returns NULL once drained: dereferencing it unchecked fails. */
// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("socket")
int kf_iter_task_null_deref(struct __sk_buff *skb)
{
	struct bpf_iter_task it;
	int pid;

	bpf_iter_task_new(&it, NULL, ALL_PROCS);
	pid = bpf_iter_task_next(&it)->pid;
	bpf_iter_task_destroy(&it);
	return pid & 1;
}

/* A task iterator is not a number iterator. */
// vercheck: reject "expected an initialized iter_num as arg #0"
SEC("socket")
int kf_iter_task_wrong_kind(struct __sk_buff *skb)
{
	struct bpf_iter_task it;

	bpf_iter_task_new(&it, NULL, ALL_PROCS);
	bpf_iter_num_next((struct bpf_iter_num *)&it);
	bpf_iter_task_destroy(&it);
	return 0;
}

/* Walks the current task's memory areas (a trusted task). */
// vercheck: accept
SEC("tp_btf/task_newtask")
int kf_iter_vma_current(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	unsigned long last = 0;

	bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it)))
		last = vma->vm_start;
	bpf_iter_task_vma_destroy(&it);
	return last == 1;
}

/* task->last_wakee is neither trusted nor RCU protected. */
// vercheck: reject "R2 must be a rcu pointer"
SEC("tp_btf/task_newtask")
int kf_iter_vma_untrusted(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;

	bpf_iter_task_vma_new(&it, task->last_wakee, 0);
	bpf_iter_task_vma_destroy(&it);
	return 0;
}

/* group_leader is RCU protected: enough for the vma iterator (KF_RCU). */
// vercheck: accept
SEC("tp_btf/task_newtask")
int kf_iter_vma_rcu_task(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	int n = 0;

	bpf_iter_task_vma_new(&it, task->group_leader, 0);
	while ((vma = bpf_iter_task_vma_next(&it)))
		n++;
	bpf_iter_task_vma_destroy(&it);
	return n & 1;
}

/* The task iterator wants a trusted task (or NULL), not an RCU one. */
// vercheck: reject "R2 must be referenced or trusted"
SEC("tp_btf/task_newtask")
int kf_iter_task_rcu_arg(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task it;

	bpf_iter_task_new(&it, task->group_leader, ALL_PROCS);
	bpf_iter_task_destroy(&it);
	return 0;
}

/* Walks the descendants of a cgroup looked up by id. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int kf_iter_css_walk(void *ctx)
{
	struct cgroup *cg = bpf_cgroup_from_id(1);
	struct cgroup_subsys_state *pos;
	struct bpf_iter_css it;
	int n = 0;

	if (!cg)
		return 0;
	bpf_iter_css_new(&it, &cg->self, DESCENDANTS_PRE);
	while ((pos = bpf_iter_css_next(&it)))
		n += pos->flags & 1;
	bpf_iter_css_destroy(&it);
	bpf_cgroup_release(cg);
	return n & 1;
}

/* The css iterator's start must not be NULL. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg1"
SEC("tp_btf/task_newtask")
int kf_iter_css_null(void *ctx)
{
	struct bpf_iter_css it;

	bpf_iter_css_new(&it, NULL, DESCENDANTS_PRE);
	bpf_iter_css_destroy(&it);
	return 0;
}

/* The css_task iterator is for LSM, iter and sleepable programs only. */
// vercheck: reject "css_task_iter is only allowed in bpf_lsm, bpf_iter and sleepable progs"
SEC("tp_btf/task_newtask")
int kf_iter_css_task_not_allowed(void *ctx)
{
	struct cgroup *cg = bpf_cgroup_from_id(1);
	struct bpf_iter_css_task it;

	if (!cg)
		return 0;
	bpf_iter_css_task_new(&it, &cg->self, 0);
	bpf_iter_css_task_destroy(&it);
	bpf_cgroup_release(cg);
	return 0;
}

/* The task next() returns is RCU protected, so it can seed another
 * iterator that takes RCU pointers. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int kf_iter_task_nested_vma(void *ctx)
{
	struct bpf_iter_task_vma vit;
	struct bpf_iter_task it;
	struct task_struct *t;
	int n = 0;

	bpf_iter_task_new(&it, NULL, ALL_PROCS);
	while ((t = bpf_iter_task_next(&it))) {
		bpf_iter_task_vma_new(&vit, t, 0);
		if (bpf_iter_task_vma_next(&vit))
			n++;
		bpf_iter_task_vma_destroy(&vit);
	}
	bpf_iter_task_destroy(&it);
	return n & 1;
}

char _license[] SEC("license") = "GPL";
