#include "progs.h"

/* A lookup in a map of maps whose inner maps hold a timer (a workqueue, a
 * task_work) gives each inner map a uid, the lookup's id. Where lookups are
 * typed at the call (stable entry lookup-typed-at-call), the uid is set at
 * the call too, and regs_exact compares it raw: the inner map of the
 * second pass below is not the first pass's, and the second pass is not
 * pruned at the NULL check. vercheck set the uid only at the NULL check and
 * pruned there: 21 instructions against the kernel's 25 (a fuzz mutant of
 * the seed 20261901 run: 19 against 21). With inner maps of plain values
 * there is no uid and both prune. */

char _license[] SEC("license") = "GPL";

#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

struct s19_tval {
	__u64 hits;
	struct bpf_timer t;
};

struct s19_tinner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s19_tval);
} s19_tinner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, int);
	__array(values, struct s19_tinner);
} s19_touter SEC(".maps");

struct s19_pinner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} s19_pinner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, int);
	__array(values, struct s19_pinner);
} s19_pouter SEC(".maps");

/* may_goto +0 walks the rest twice, the second time from its queued
 * state; the lookup's result reaches the NULL check with another id. */
#define TWO_PASS_LOOKUP(map)						\
	asm volatile(							\
		MAY_GOTO(0)						\
		"r0 = 0;"						\
		"*(u64 *)(r10 - 8) = r0;"				\
		"r2 = r10;"						\
		"r2 += -8;"						\
		"r1 = %[m] ll;"						\
		"call %[bpf_map_lookup_elem];"				\
		"r6 = r0;"						\
		"if r6 == 0 goto +0;"					\
		"r0 = 0;"						\
		"exit;"							\
		:: [m]"i"(&map), __imm(bpf_map_lookup_elem)		\
		: __clobber_all)

// vercheck: accept
SEC("xdp")
__naked int s19_mim_timer_two_pass(void)
{
	TWO_PASS_LOOKUP(s19_touter);
}

// vercheck: accept
SEC("xdp")
__naked int s19_mim_plain_two_pass(void)
{
	TWO_PASS_LOOKUP(s19_pouter);
}

/* The same lookups in C: an inner map's value read after both checks. The
 * subprogram's parameter makes clang emit the value struct whole (the
 * programs above name it only through the map definitions, which gives a
 * forward declaration). */
static __attribute__((noinline)) int s19_hits(struct s19_tval *v)
{
	return v ? (int)v->hits : 0;
}

// vercheck: accept
SEC("xdp")
int s19_mim_timer_read(void *ctx)
{
	int k = 0;
	void *inner = bpf_map_lookup_elem(&s19_touter, &k);

	if (!inner)
		return 0;
	return s19_hits(bpf_map_lookup_elem(inner, &k));
}
