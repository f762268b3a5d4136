#include "progs.h"

/* Synchronous callbacks: the kernel verifies the callback body as a loop
 * around the helper call, until the call's checkpoint covers the state. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} cb_array SEC(".maps");

struct loop_ctx {
	__u64 sum;
	__u32 idx;
};

static int add_index(__u64 index, struct loop_ctx *c)
{
	c->sum += index;
	return 0;
}

static int stop_early(__u64 index, struct loop_ctx *c)
{
	c->idx = index;
	return index > 3;
}

static int bad_return(__u64 index, void *c)
{
	return 2;
}

static __u64 sum_values(void *map, __u32 *key, __u64 *value, struct loop_ctx *c)
{
	c->sum += *value;
	return 0;
}

static int read_past_value(void *map, __u32 *key, __u64 *value, void *c)
{
	return value[1] & 1;
}

static int store_index(__u64 index, struct loop_ctx *c)
{
	c->idx = index;
	return 0;
}

// The loop's index escapes through the context: after the loop it is
// unknown, so indexing a 4-byte buffer with it must be rejected.
// vercheck: reject "invalid unbounded variable-offset read from stack R2"
SEC("socket")
int cb_loop_escape(struct __sk_buff *skb)
{
	struct loop_ctx c = {};
	volatile __u8 buf[4] = {};

	bpf_loop(3, store_index, &c, 0);
	return buf[c.idx];
}

// vercheck: accept
SEC("socket")
int cb_loop_sum(struct __sk_buff *skb)
{
	struct loop_ctx c = {};

	bpf_loop(16, add_index, &c, 0);
	return c.sum & 1;
}

// vercheck: accept
SEC("socket")
int cb_loop_stop(struct __sk_buff *skb)
{
	struct loop_ctx c = {};

	bpf_loop(skb->len, stop_early, &c, 0);
	return c.idx & 1;
}

// vercheck: reject "At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]"
SEC("socket")
int cb_loop_bad_return(struct __sk_buff *skb)
{
	bpf_loop(4, bad_return, 0, 0);
	return 0;
}

// vercheck: accept
SEC("socket")
int cb_for_each_sum(struct __sk_buff *skb)
{
	struct loop_ctx c = {};

	bpf_for_each_map_elem(&cb_array, sum_values, &c, 0);
	return c.sum & 1;
}

// vercheck: reject "R3 min value is outside of the allowed memory range"
SEC("socket")
int cb_for_each_oob(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&cb_array, read_past_value, 0, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
