// Static functions may not carry "arg:" decl tags: btf_prepare_func_args
// refuses the prototype with "arg#N type tag is not supported in static
// functions" (EOPNOTSUPP), which check_func_call and push_callback_call
// ignore: the call goes on unchecked. The prototype is neither cached nor
// marked unreliable, so every call logs the refusal again; arguments are
// looked at in order, tags first, so an earlier argument the static
// prototype refuses quietly (a pointer other than the context) hides a
// later tag. Found from level-2 log differences of mutation fuzzing.
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_ctx __attribute__((btf_decl_tag("arg:ctx")))
#define __arg_nullable __attribute__((btf_decl_tag("arg:nullable")))
#define __not_arg __attribute__((btf_decl_tag("other:tag")))

static __noinline int s30_tagged(void *ctx __arg_ctx)
{
	return bpf_get_prandom_u32() & 1;
}

static __noinline int s30_second_tagged(int n, void *p __arg_nullable)
{
	return n + (p != 0);
}

static __noinline int s30_tag_after_ptr(int *q, void *p __arg_nullable)
{
	return p != 0;
}

static __noinline int s30_other_tag(int n __not_arg)
{
	return (n + bpf_get_prandom_u32()) & 1;
}

/* Two calls: the refusal is logged at each. */
// vercheck: accept
SEC("xdp")
int s30_static_tag_twice(struct xdp_md *ctx)
{
	return (s30_tagged(ctx) + s30_tagged(ctx)) & 1;
}

/* The second argument's tag, after a scalar. */
// vercheck: accept
SEC("xdp")
int s30_static_tag_second(struct xdp_md *ctx)
{
	return s30_second_tagged(1, ctx) & 1;
}

/* A stack pointer first: refused quietly, the tag is never looked at. */
// vercheck: accept
SEC("xdp")
int s30_static_tag_hidden(struct xdp_md *ctx)
{
	int x = 3;

	return s30_tag_after_ptr(&x, ctx) & 1;
}

/* A decl tag without the "arg:" prefix is not an argument tag. */
// vercheck: accept
SEC("xdp")
int s30_static_other_tag(struct xdp_md *ctx)
{
	return s30_other_tag(ctx->ingress_ifindex);
}

static int s30_loop_cb(__u32 i, void *data __arg_ctx)
{
	return 0;
}

/* A callback's prototype is prepared at each push_callback_call. */
// vercheck: accept
SEC("xdp")
int s30_static_tag_callback(struct xdp_md *ctx)
{
	bpf_loop(4, s30_loop_cb, 0, 0);
	return 0;
}

/* A static main function with a tagged context: refused once, at the
 * start, before the first instruction. */
// vercheck: accept
SEC("xdp")
static int s30_static_main(struct xdp_md *ctx __arg_ctx)
{
	return 1;
}

struct s30_timer_val {
	__u64 pad;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct s30_timer_val);
} s30_timers SEC(".maps");

static int s30_timer_cb(void *map __arg_nullable, __u32 *key, struct s30_timer_val *val)
{
	return 0;
}

/* An async callback's prototype too: the refusal splits the call's line,
 * whose state then follows on a line of its own. */
// vercheck: accept
SEC("tc")
int s30_static_tag_timer(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct s30_timer_val *v = bpf_map_lookup_elem(&s30_timers, &key);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &s30_timers, 1);
	bpf_timer_set_callback(&v->t, s30_timer_cb);
	return 0;
}
