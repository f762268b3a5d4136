#include "progs.h"

/* bpf_loop callbacks that never converge, so that both verifiers spend
 * their whole budget on them: the shape of issue 11's 37-instruction
 * bpf_loop program, which took vercheck 200 times the kernel's time to
 * the 1M-instruction limit (BenchmarkLiveRatio with VERCHECK_BENCH naming
 * this object times both). Each callback call is verified again from a
 * state whose counter in the caller's stack differs from every earlier
 * one by a precise constant (the comparison with a constant marks it
 * precise), so the states at the callback's entry pile up, every one
 * compared with the new arrival until the drop heuristic evicts them. */

static int s42_count_cb(__u32 i, void *ctx)
{
	__u64 *c = ctx;

	*c += 1;
	return *c == 0x7fffffff;
}

/* One counter: the budget runs out, the kernel's 90,911 states. */
// vercheck: reject "BPF program is too large. Processed 1000001 insn"
SEC("xdp")
int s42_bploop_count(struct xdp_md *x)
{
	__u64 c = 0;

	bpf_loop(1000000, s42_count_cb, &c, 0);
	return c & 1;
}

static int s42_inner_cb(__u32 i, void *ctx)
{
	__u64 *c = ctx;

	*c += 3;
	return *c == 0x7fffffff;
}

static int s42_outer_cb(__u32 i, void *ctx)
{
	__u64 *c = ctx;

	*c += 1;
	bpf_loop(4, s42_inner_cb, c, 0);
	return *c == 0x7ffffffe;
}

/* A bpf_loop inside the callback: two frames of callback states, and the
 * pending branches of the inner loop's exits pile up until the jump
 * sequence limit. */
// vercheck: reject "The sequence of 8193 jumps is too complex."
SEC("xdp")
int s42_bploop_nested(struct xdp_md *x)
{
	__u64 c = 0;

	bpf_loop(1000000, s42_outer_cb, &c, 0);
	return c & 1;
}

struct s42_four {
	__u64 a, b, c, d;
};

static int s42_four_cb(__u32 i, void *ctx)
{
	struct s42_four *s = ctx;

	s->a += 1;
	s->b += s->a;
	s->c += s->b & 3;
	s->d = s->c ^ s->a;
	return s->d == 999999;
}

/* Four counters, one of them read by the exit test only through the
 * others: every callback state differs in four slots. */
// vercheck: reject "BPF program is too large. Processed 1000001 insn"
SEC("tc")
int s42_bploop_four(struct __sk_buff *skb)
{
	struct s42_four s = {};

	bpf_loop(1000000, s42_four_cb, &s, 0);
	return s.a & 1;
}

char _license[] SEC("license") = "GPL";
