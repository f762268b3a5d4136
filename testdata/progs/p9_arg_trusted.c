// Global functions whose pointer argument is tagged arg:trusted (libbpf's
// __arg_trusted), as sched-ext/scx's libraries write them: the callee gets
// a trusted BTF pointer to the vmlinux struct of the pointee's name
// (btf_prepare_func_args, do_check_common's ARG_PTR_TO_BTF_ID case), maybe
// NULL when also tagged arg:nullable; the caller must pass a trusted BTF
// pointer to that struct, NULL where nullable (a kernel without
// global-arg-trusted, 6.18.0, also takes a plain or RCU one:
// btf_check_func_arg_match through check_reg_type). See w12_global_trusted.c.
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#define __arg_nullable __attribute__((btf_decl_tag("arg:nullable")))
#define __arg_nonnull __attribute__((btf_decl_tag("arg:nonnull")))

/* Only the name matters: the kernel takes vmlinux's struct of that name. */
struct task_struct {
	unsigned long flags;
};

static struct task_struct *(*get_task_btf)(void) = (void *)158;

__noinline int tt_flags(struct task_struct *t __arg_trusted)
{
	return t->flags & 1;
}

__noinline int tt_nullable_checked(struct task_struct *t __arg_trusted __arg_nullable)
{
	if (!t)
		return 0;
	return t->flags & 1;
}

__noinline int tt_nullable_unchecked(struct task_struct *t __arg_trusted __arg_nullable)
{
	return t->flags & 1;
}

__noinline int tt_nonnull(struct task_struct *t __arg_trusted __arg_nonnull)
{
	return t->flags & 1;
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int trusted_arg_task(void *ctx)
{
	return tt_flags(get_task_btf());
}

// vercheck: reject "Caller passes invalid args into func#1 ('tt_flags')"
SEC("tp_btf/sched_switch")
int trusted_arg_stack(void *ctx)
{
	struct task_struct t = {};

	return tt_flags(&t);
}

// vercheck: reject "Caller passes invalid args into func#1 ('tt_flags')"
SEC("tp_btf/sched_switch")
int trusted_arg_null(void *ctx)
{
	return tt_flags((void *)0);
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int trusted_nullable_null(void *ctx)
{
	return tt_nullable_checked((void *)0) + tt_nullable_checked(get_task_btf());
}

// vercheck: reject "invalid mem access 'trusted_ptr_or_null_'"
SEC("tp_btf/sched_switch")
int trusted_nullable_deref(void *ctx)
{
	return tt_nullable_unchecked(get_task_btf());
}

// vercheck: reject "Caller passes invalid args into func#1 ('tt_nonnull')"
SEC("tp_btf/sched_switch")
int trusted_nonnull(void *ctx)
{
	return tt_nonnull(get_task_btf());
}
