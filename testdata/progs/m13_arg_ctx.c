// Global functions with an argument tagged arg:ctx (libbpf's __arg_ctx):
// btf_validate_prog_ctx_type wants void, a special case of the program
// type (u64 for tp_btf and fentry-like programs, struct
// bpf_raw_tracepoint_args for tp_btf, a struct bpf_iter__* for
// iterators), or else the program type's context struct by its exact
// name: a tagged struct sk_buff is refused in a tc program, though an
// untagged one is the context there (btf_is_prog_ctx_type takes the
// kernel's name too).
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_ctx __attribute__((btf_decl_tag("arg:ctx")))

struct task_struct {
	int pid;
};

struct bpf_iter_meta {
	void *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct sk_buff {
	unsigned int len;
};

struct xdp_buff {
	void *data;
};

__noinline int m13_u64(__u64 *ctx __arg_ctx)
{
	return bpf_get_prandom_u32() & 1;
}

__noinline int m13_rawtp_args(struct bpf_raw_tracepoint_args *ctx __arg_ctx)
{
	return bpf_get_prandom_u32() & 1;
}

__noinline int m13_task(struct task_struct *ctx __arg_ctx)
{
	return bpf_get_prandom_u32() & 1;
}

__noinline int m13_iter_task(struct bpf_iter__task *ctx __arg_ctx)
{
	return bpf_get_prandom_u32() & 1;
}

__noinline int m13_kskb(struct sk_buff *ctx __arg_ctx)
{
	return bpf_get_prandom_u32() & 1;
}

__noinline int m13_kskb_untagged(struct sk_buff *ctx)
{
	return bpf_get_prandom_u32() & 1;
}

__noinline int m13_uskb(struct __sk_buff *ctx __arg_ctx)
{
	return ctx->len & 1;
}

__noinline int m13_xdp_buff(struct xdp_buff *ctx __arg_ctx)
{
	return bpf_get_prandom_u32() & 1;
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_ctx_tp_btf_u64(void *ctx)
{
	return m13_u64(ctx);
}

// vercheck: accept
SEC("tp_btf/sched_switch")
int m13_ctx_tp_btf_args(void *ctx)
{
	return m13_rawtp_args(ctx);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_task')"
SEC("tp_btf/sched_switch")
int m13_ctx_tp_btf_task(void *ctx)
{
	return m13_task(ctx);
}

// vercheck: accept
SEC("iter/task")
int m13_ctx_iter(struct bpf_iter__task *ctx)
{
	m13_iter_task(ctx);
	return 0;
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_u64')"
SEC("iter/task")
int m13_ctx_iter_u64(struct bpf_iter__task *ctx)
{
	m13_u64((void *)ctx);
	return 0;
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_kskb')"
SEC("tc")
int m13_ctx_tc_kernel_skb(struct __sk_buff *skb)
{
	return m13_kskb((void *)skb);
}

// vercheck: accept
SEC("tc")
int m13_ctx_tc_kernel_skb_untagged(struct __sk_buff *skb)
{
	return m13_kskb_untagged((void *)skb);
}

// vercheck: accept
SEC("tc")
int m13_ctx_tc_skb(struct __sk_buff *skb)
{
	return m13_uskb(skb);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_u64')"
SEC("tc")
int m13_ctx_tc_u64(struct __sk_buff *skb)
{
	return m13_u64((void *)skb);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_xdp_buff')"
SEC("xdp")
int m13_ctx_xdp_buff(struct xdp_md *xdp)
{
	return m13_xdp_buff((void *)xdp);
}

// vercheck: accept
SEC("raw_tp/sched_switch")
int m13_ctx_raw_tp_u64(void *ctx)
{
	return m13_u64(ctx);
}

// vercheck: accept
SEC("raw_tp/sched_switch")
int m13_ctx_raw_tp_args(void *ctx)
{
	return m13_rawtp_args(ctx);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_task')"
SEC("raw_tp/sched_switch")
int m13_ctx_raw_tp_task(void *ctx)
{
	return m13_task(ctx);
}

// vercheck: accept
SEC("raw_tp.w/sched_switch")
int m13_ctx_raw_tp_w_args(void *ctx)
{
	return m13_rawtp_args(ctx);
}

// vercheck: reject "Caller passes invalid args into func#1 ('m13_task')"
SEC("raw_tp.w/sched_switch")
int m13_ctx_raw_tp_w_task(void *ctx)
{
	return m13_task(ctx);
}
