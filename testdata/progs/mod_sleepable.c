#include "progs.h"

/* Sleepable programs (iter.s, uprobe.s): they run outside an RCU read
 * section unless they open one with bpf_rcu_read_lock. A pointer read from
 * a trusted one is then untrusted (it can still be read through, not passed
 * to helpers); inside the section RCU fields give RCU pointers, which turn
 * untrusted when it ends. Sleeping helpers and kfuncs may not be called
 * inside the section, and no path may end inside it. 6.18 does not nest
 * sections. */

struct task_struct {
	int pid;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

struct bpf_iter_meta {
	void *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct bpf_iter_task {
	__u64 __opaque[3];
} __attribute__((aligned(8)));

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign, __u64 flags) __ksym;
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task__nullable, unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} parent_seen SEC(".maps");

/* Inside an RCU read section the parent is an RCU pointer, which the task
 * storage helper takes. */
// vercheck: accept
SEC("iter.s/task")
int mod_sleepable_rcu_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (!t)
		return 0;
	bpf_rcu_read_lock();
	bpf_task_storage_get(&parent_seen, t->real_parent, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	bpf_rcu_read_unlock();
	return 0;
}

/* Outside one it is untrusted: readable, but no helper argument. */
// vercheck: reject "R2 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("iter.s/task")
int mod_sleepable_untrusted_parent(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (!t || t->real_parent->pid == 1)
		return 0;
	bpf_task_storage_get(&parent_seen, t->real_parent, 0, 0);
	return 0;
}

/* bpf_rcu_read_unlock makes the RCU pointer untrusted. */
// vercheck: reject "R2 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("iter.s/task")
int mod_sleepable_after_unlock(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task, *p;

	if (!t)
		return 0;
	bpf_rcu_read_lock();
	p = t->real_parent;
	bpf_rcu_read_unlock();
	bpf_task_storage_get(&parent_seen, p, 0, 0);
	return 0;
}

/* Sections do not nest on 6.18. */
// vercheck: reject "nested rcu read lock (kernel function bpf_rcu_read_lock)"
SEC("iter.s/task")
int mod_sleepable_nested(struct bpf_iter__task *ctx)
{
	bpf_rcu_read_lock();
	bpf_rcu_read_lock();
	bpf_rcu_read_unlock();
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)"
SEC("iter.s/task")
int mod_sleepable_unmatched(struct bpf_iter__task *ctx)
{
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog cannot be used inside bpf_rcu_read_lock-ed region"
SEC("iter.s/task")
int mod_sleepable_exit_in_section(struct bpf_iter__task *ctx)
{
	bpf_rcu_read_lock();
	return 0;
}

/* A helper that may sleep cannot be called inside the section. */
// vercheck: reject "sleepable helper bpf_copy_from_user#148 in rcu_read_lock region"
SEC("iter.s/task")
int mod_sleepable_helper_in_section(struct bpf_iter__task *ctx)
{
	char buf[8];

	bpf_rcu_read_lock();
	bpf_copy_from_user(buf, sizeof(buf), 0);
	bpf_rcu_read_unlock();
	return 0;
}

/* bpf_copy_from_user_str is a sleepable kfunc. */
// vercheck: accept
SEC("uprobe.s//bin/true:main")
int mod_sleepable_copy_str(void *ctx)
{
	char buf[16];

	return bpf_copy_from_user_str(buf, sizeof(buf), 0, 0) < 0;
}

// vercheck: reject "kernel func bpf_copy_from_user_str is sleepable within rcu_read_lock region"
SEC("uprobe.s//bin/true:main")
int mod_sleepable_copy_str_in_section(void *ctx)
{
	char buf[16];

	bpf_rcu_read_lock();
	bpf_copy_from_user_str(buf, sizeof(buf), 0, 0);
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "program must be sleepable to call sleepable kfunc bpf_copy_from_user_str"
SEC("uprobe//bin/true:main")
int mod_sleepable_copy_str_not_sleepable(void *ctx)
{
	char buf[16];

	return bpf_copy_from_user_str(buf, sizeof(buf), 0, 0) < 0;
}

/* An RCU-protected iterator needs the section. */
// vercheck: accept
SEC("iter.s/task")
int mod_sleepable_task_iter(struct bpf_iter__task *ctx)
{
	struct bpf_iter_task it;
	struct task_struct *t;
	int n = 0;

	bpf_rcu_read_lock();
	bpf_iter_task_new(&it, 0, 0);
	while ((t = bpf_iter_task_next(&it)) && n < 8)
		n++;
	bpf_iter_task_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "kernel func bpf_iter_task_new requires RCU critical section protection"
SEC("iter.s/task")
int mod_sleepable_task_iter_outside(struct bpf_iter__task *ctx)
{
	struct bpf_iter_task it;

	bpf_iter_task_new(&it, 0, 0);
	bpf_iter_task_next(&it);
	bpf_iter_task_destroy(&it);
	return 0;
}

/* The iterator ends with the section that made it. */
// vercheck: reject "expected an RCU CS when using bpf_iter_task_next"
SEC("iter.s/task")
int mod_sleepable_task_iter_after_unlock(struct bpf_iter__task *ctx)
{
	struct bpf_iter_task it;

	bpf_rcu_read_lock();
	bpf_iter_task_new(&it, 0, 0);
	bpf_rcu_read_unlock();
	bpf_iter_task_next(&it);
	bpf_iter_task_destroy(&it);
	return 0;
}

char _license[] SEC("license") = "GPL";
