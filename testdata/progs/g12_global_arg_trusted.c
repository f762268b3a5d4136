// A global function's argument tagged arg:trusted takes only a trusted
// pointer on this machine's kernel (a build change of 6.18.44-fc-v1045,
// not upstream): "R1 must be referenced or trusted" (EINVAL) comes first.
// 6.18.0 checks the argument as a helper's BTF argument, which an RCU
// pointer passes (stablefix.GlobalArgTrusted).
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#define __arg_nullable __attribute__((btf_decl_tag("arg:nullable")))

struct task_struct {
	unsigned int flags;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

static struct task_struct *(*get_task_btf)(void) = (void *)158;

__noinline int g12_gt_flags(struct task_struct *t __arg_trusted)
{
	return t->flags & 1;
}

__noinline int g12_gt_nullable(struct task_struct *t __arg_trusted __arg_nullable)
{
	if (!t)
		return 0;
	return t->flags & 1;
}

/* The current task is trusted. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int g12_gt_current(void *ctx)
{
	return g12_gt_flags(get_task_btf());
}

/* Its real_parent is an RCU pointer. */
// vercheck: reject "Caller passes invalid args into func#1 ('g12_gt_flags')"
// vercheck: accept without global-arg-trusted
SEC("tp_btf/sched_switch")
int g12_gt_rcu(void *ctx)
{
	return g12_gt_flags(get_task_btf()->real_parent);
}

/* Nullable or not. */
// vercheck: reject "Caller passes invalid args into func#1 ('g12_gt_nullable')"
// vercheck: accept without global-arg-trusted
SEC("tp_btf/sched_switch")
int g12_gt_nullable_rcu(void *ctx)
{
	return g12_gt_nullable(get_task_btf()->real_parent);
}

/* NULL to a nullable argument needs no trust. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int g12_gt_nullable_null(void *ctx)
{
	return g12_gt_nullable((void *)0);
}
