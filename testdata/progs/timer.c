#include "progs.h"

/* bpf_timer: a timer in a map value; its callback is verified as a
 * program of its own, started from a fresh state. */

#define CLOCK_MONOTONIC 1

struct timer_val {
	__u64 hits;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct timer_val);
} timer_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct timer_val);
} other_timer_map SEC(".maps");

static int timer_cb(void *map, __u32 *key, struct timer_val *val)
{
	val->hits++;
	return 0;
}

static int timer_cb_bad_ret(void *map, __u32 *key, struct timer_val *val)
{
	return 1;
}

static int timer_cb_oob(void *map, __u32 *key, struct timer_val *val)
{
	*(volatile __u64 *)((char *)val + 24) = 1;
	return 0;
}

// vercheck: accept
SEC("tc")
int timer_ok(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct timer_val *v = bpf_map_lookup_elem(&timer_map, &key);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &timer_map, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&v->t, timer_cb);
	bpf_timer_start(&v->t, 1000, 0);
	if (skb->len > 100)
		bpf_timer_cancel(&v->t);
	return 0;
}

// vercheck: reject "At async callback return the register R0 has smin=1 smax=1 should have been in [0, 0]"
SEC("tc")
int timer_bad_return(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct timer_val *v = bpf_map_lookup_elem(&timer_map, &key);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &timer_map, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&v->t, timer_cb_bad_ret);
	return 0;
}

// The callback is verified even though the program never starts the timer.
// vercheck: reject "R3 min value is outside of the allowed memory range"
SEC("tc")
int timer_cb_out_of_bounds(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct timer_val *v = bpf_map_lookup_elem(&timer_map, &key);

	if (!v)
		return 0;
	bpf_timer_set_callback(&v->t, timer_cb_oob);
	return 0;
}

// vercheck: reject "timer pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0"
SEC("tc")
int timer_wrong_map(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct timer_val *v = bpf_map_lookup_elem(&timer_map, &key);

	if (!v)
		return 0;
	bpf_timer_init(&v->t, &other_timer_map, CLOCK_MONOTONIC);
	return 0;
}

// vercheck: reject "off 0 doesn't point to 'struct bpf_timer' that is at 8"
SEC("tc")
__naked int timer_wrong_offset(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[timer_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r1 = r0;"
		"call %[bpf_timer_cancel];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(timer_map), __imm(bpf_map_lookup_elem), __imm(bpf_timer_cancel)
		: __clobber_all);
}

// vercheck: reject "bpf_timer cannot be accessed directly by load/store"
SEC("tc")
__naked int timer_direct_store(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[timer_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r1 = 0;"
		"*(u64 *)(r0 + 16) = r1;"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(timer_map), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
