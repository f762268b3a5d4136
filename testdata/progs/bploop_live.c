#include "progs.h"

/* Stack liveness across a callback's call site: bpf_loop may run its
 * callback again, so what the callback reads of the caller's stack through
 * its ctx pointer stays alive while it runs, though the caller never reads
 * it after the loop (the kernel's bpf_stack_slot_alive asks a frame that
 * calls a callback before its call insn, not after it). A checkpoint inside
 * the callback must not drop those slots. */

#define NBUF 32

struct event {
	__u64 pid;
	__u32 n;
	__u32 flags;
	__u8 buf[NBUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct event);
} bl_live_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} bl_live_arr SEC(".maps");

struct walk_ctx {
	struct event *ev;
	__u64 acc;
	__u32 limit;
	__u32 found;
};

/* The loop bound c->limit lives in the caller's stack; the subprogram's
 * loop narrows it (a linked copy), so each iteration's states differ by it. */
static __attribute__((noinline)) __u64 sum_buf(struct event *ev, __u32 n)
{
	__u64 s = 0;

	if (n > NBUF)
		n = NBUF;
	for (__u32 i = 0; i < n; i++)
		s += ev->buf[i];
	return s;
}

static int cb_subprog(__u64 idx, struct walk_ctx *c)
{
	c->acc += sum_buf(c->ev, c->limit);
	if (c->acc > 1000)
		return 1;
	return 0;
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int bl_live_subprog(void *ctx)
{
	__u32 zero = 0;
	struct walk_ctx c = {};

	c.ev = bpf_map_lookup_elem(&bl_live_scratch, &zero);
	if (!c.ev)
		return 0;
	c.limit = c.ev->n;
	bpf_loop(64, cb_subprog, &c, 0);
	return c.acc & 1;
}

struct later_ctx {
	__u32 idx;
	__u32 armed;
};

/* c->idx is read only from the second iteration on: at the checkpoint
 * after "armed = 1" it is still alive (the next iteration reads it). */
static int cb_read_later(__u64 i, struct later_ctx *c)
{
	__u32 zero = 0;
	__u8 *v = bpf_map_lookup_elem(&bl_live_arr, &zero);

	if (!v)
		return 1;
	if (c->armed)
		return v[c->idx] & 1;
	c->armed = 1;
	if (bpf_get_prandom_u32() & 1)
		return 0;
	return 0;
}

// vercheck: reject "R0 unbounded memory access, make sure to bounds check any such access"
SEC("kprobe/do_nanosleep")
int bl_live_read_later(void *ctx)
{
	struct later_ctx c = {};

	c.idx = bpf_get_prandom_u32() & 1 ? 0 : 100;
	bpf_loop(2, cb_read_later, &c, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
