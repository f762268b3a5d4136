#include "progs.h"

/* Tracing-style programs that call bpf_loop (and bpf_for_each_map_elem) with
 * bounded loops inside the callback, as clang emits them.
 *
 * bl_stack_read is the one that kept vercheck apart from the kernel: the
 * callback fills values the previous iteration widened (spilled, unknown,
 * id-less) from the caller's stack. 6.18 gives such a fill no id, so the
 * comparisons that follow narrow only the register, not the slot; with an
 * id the slot was narrowed too, every iteration's state differed and
 * vercheck explored 5x the kernel's insns. */

#define NBUF 32
#define NSLOT 8

struct event {
	__u64 pid;
	__u32 n;
	__u32 flags;
	__u8 buf[NBUF];
	__u64 slots[NSLOT];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct event);
} bl_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} bl_arr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct event);
} bl_hash SEC(".maps");

struct walk_ctx {
	struct event *ev;
	__u64 acc;
	__u32 limit;
	__u32 found;
};

/* Constant-bound loop over the event's buffer. */
static int cb_const_loop(__u64 idx, struct walk_ctx *c)
{
	struct event *ev = c->ev;
	__u64 h = c->acc;

	for (int i = 0; i < NBUF; i++)
		h = h * 31 + ev->buf[i];
	c->acc = h;
	return 0;
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int bl_const_loop(void *ctx)
{
	__u32 zero = 0;
	struct walk_ctx c = {};

	c.ev = bpf_map_lookup_elem(&bl_scratch, &zero);
	if (!c.ev)
		return 0;
	bpf_loop(4, cb_const_loop, &c, 0);
	return c.acc & 1;
}

/* Variable-bound loop: the bound comes from the map value, clamped. */
static int cb_var_loop(__u64 idx, struct walk_ctx *c)
{
	struct event *ev = c->ev;
	__u32 n = ev->n;

	if (n > NBUF)
		n = NBUF;
	for (__u32 i = 0; i < n; i++) {
		if (ev->buf[i] == 0) {
			c->found = i;
			return 1;
		}
		c->acc += ev->buf[i];
	}
	return 0;
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int bl_var_loop(void *ctx)
{
	__u32 zero = 0;
	struct walk_ctx c = {};

	c.ev = bpf_map_lookup_elem(&bl_scratch, &zero);
	if (!c.ev)
		return 0;
	bpf_loop(16, cb_var_loop, &c, 0);
	return c.found;
}

/* Nested loops inside the callback. */
static int cb_nested(__u64 idx, struct walk_ctx *c)
{
	struct event *ev = c->ev;

	for (int i = 0; i < NSLOT; i++) {
		__u64 s = 0;

		for (int j = 0; j < 4; j++)
			s += ev->buf[i * 4 + j];
		ev->slots[i] = s;
	}
	return 0;
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int bl_nested(void *ctx)
{
	__u32 zero = 0;
	struct walk_ctx c = {};

	c.ev = bpf_map_lookup_elem(&bl_scratch, &zero);
	if (!c.ev)
		return 0;
	bpf_loop(8, cb_nested, &c, 0);
	return 0;
}

/* The callback reads the caller's stack through its ctx pointer, with an
 * index that depends on the loop's iteration. */
#define NVALS 4

struct stack_ctx {
	__u64 vals[NVALS];
	__u32 pos;
	__u32 stop;
};

static int cb_stack_read(__u64 idx, struct stack_ctx *c)
{
	__u32 p = c->pos;

	for (int i = 0; i < NVALS; i++) {
		if (c->vals[i] > idx)
			c->pos = i;
	}
	if (p >= NVALS)
		return 1;
	c->vals[p] += idx;
	return c->vals[p] > 100;
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int bl_stack_read(void *ctx)
{
	struct stack_ctx c = {};

	c.vals[0] = bpf_get_prandom_u32();
	c.vals[NVALS - 1] = bpf_get_prandom_u32();
	bpf_loop(32, cb_stack_read, &c, 0);
	return c.pos;
}

/* A for_each_map_elem callback with a loop over the element. */
static __u64 cb_each(void *map, __u32 *key, struct event *ev, struct walk_ctx *c)
{
	for (int i = 0; i < NSLOT; i++) {
		if (ev->slots[i] == 0)
			break;
		c->acc += ev->slots[i];
	}
	return c->acc > 5000;
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int bl_for_each(void *ctx)
{
	struct walk_ctx c = {};

	bpf_for_each_map_elem(&bl_hash, cb_each, &c, 0);
	return c.acc & 1;
}

/* Counting in the callback: the iteration counter lives in the caller's
 * stack and the callback branches on it. */
struct count_ctx {
	__u32 hits;
	__u32 misses;
	__u64 last;
};

static int cb_count(__u64 idx, struct count_ctx *c)
{
	__u32 key = idx & 15;
	__u64 *v = bpf_map_lookup_elem(&bl_arr, &key);

	if (!v) {
		c->misses++;
		return 0;
	}
	for (int i = 0; i < 4; i++) {
		if (*v & (1 << i))
			c->hits++;
	}
	c->last = *v;
	return 0;
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int bl_count(void *ctx)
{
	struct count_ctx c = {};

	bpf_loop(16, cb_count, &c, 0);
	return c.hits > c.misses;
}

char _license[] SEC("license") = "GPL";
