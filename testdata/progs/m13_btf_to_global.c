// A BTF object pointer passed where a global function takes memory (a
// pointer to a sized type, untagged) or the context: the offset check lets
// a trusted BTF pointer carry a fixed offset (check_func_arg_reg_off), and
// check_mem_reg checks a read and a write of the argument's size through
// it (check_ptr_to_btf_access): a tracing program may not write kernel
// structs, so no BTF pointer passes there.
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_ctx __attribute__((btf_decl_tag("arg:ctx")))

struct task_struct {
	unsigned long flags;
};

static struct task_struct *(*get_task_btf)(void) = (void *)158;

__u32 m13_off;

__noinline int m13_write_int(int *p)
{
	if (!p)
		return 0;
	*p = 42;
	return 0;
}

__noinline int m13_ctx_arg(void *ctx __arg_ctx)
{
	return bpf_get_prandom_u32();
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_write_int')"
SEC("tp_btf/sched_switch")
int m13_btf_field_to_mem(void *ctx)
{
	struct task_struct *t = get_task_btf();

	return m13_write_int((int *)((char *)t + 108));
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_write_int')"
SEC("tp_btf/sched_switch")
int m13_btf_to_mem(void *ctx)
{
	return m13_write_int((int *)get_task_btf());
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_write_int')"
SEC("tp_btf/sched_switch")
int m13_btf_var_off_to_mem(void *ctx)
{
	struct task_struct *t = get_task_btf();

	return m13_write_int((int *)((char *)t + (m13_off & 8)));
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_write_int')"
SEC("tp_btf/sched_switch")
int m13_btf_neg_off_to_mem(void *ctx)
{
	struct task_struct *t = get_task_btf();

	return m13_write_int((int *)((char *)t - 8));
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_ctx_arg')"
SEC("tp_btf/sched_switch")
int m13_btf_to_ctx(void *ctx)
{
	return m13_ctx_arg(get_task_btf());
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_ctx_to_ctx(void *ctx)
{
	return m13_ctx_arg(ctx) + m13_write_int(0);
}
