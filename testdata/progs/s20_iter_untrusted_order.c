#include "progs.h"

/* is_iter_reg_valid_init tests each slot's untrusted mark before anything
 * else: an RCU iterator whose section has ended is "expected an RCU CS"
 * even where the kfunc wants an iterator of another type, and so is a
 * spilled untrusted pointer where an iterator should be. */

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

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

struct bpf_iter_css_task {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task__nullable, unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym;
extern void bpf_iter_css_task_destroy(struct bpf_iter_css_task *it) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;

/* A task iterator past its section, handed to css_task's destructor. */
// vercheck: reject "expected an RCU CS when using bpf_iter_css_task_destroy"
SEC("iter.s/task")
int s20_untrusted_iter_wrong_type(struct bpf_iter__task *ctx)
{
	struct bpf_iter_task it;

	bpf_rcu_read_lock();
	bpf_iter_task_new(&it, 0, 0);
	bpf_rcu_read_unlock();
	bpf_iter_css_task_destroy((struct bpf_iter_css_task *)&it);
	bpf_iter_task_destroy(&it);
	return 0;
}

/* The same iterator inside its section is only of the wrong type. */
// vercheck: reject "expected an initialized iter_css_task as arg #0"
SEC("iter.s/task")
int s20_trusted_iter_wrong_type(struct bpf_iter__task *ctx)
{
	struct bpf_iter_task it;

	bpf_rcu_read_lock();
	bpf_iter_task_new(&it, 0, 0);
	bpf_iter_css_task_destroy((struct bpf_iter_css_task *)&it);
	bpf_iter_task_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

/* An untrusted pointer spilled where a num iterator should be. */
// vercheck: reject "expected an RCU CS when using bpf_iter_num_next"
SEC("iter.s/task")
int s20_untrusted_spill_as_iter(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (!t)
		return 0;
	/* The parent's pointer, spilled as it is, in place of an iterator. */
	volatile __u64 slot[1];

	*(struct task_struct *volatile *)slot = t->real_parent;
	bpf_iter_num_next((struct bpf_iter_num *)slot);
	return 0;
}

char _license[] SEC("license") = "GPL";
