#include "progs.h"

/* A timer callback that registers itself again. The callback's second entry
 * (async_entry_cnt 2) reaches the callback's first instruction while the
 * first entry's checkpoint there still has an open branch: is_state_visited
 * must not take that for an infinite loop (nor for a loop convergence), as
 * the states are of two different entries into the callback. */

#define CLOCK_MONOTONIC 1

struct timer_val {
	__u64 hits;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct timer_val);
} au10_timer_map SEC(".maps");

static __naked __attribute__((noinline, used)) int au10_rearm_cb(void)
{
	asm volatile (
	"r6 = r3;"
	"call %[bpf_get_prandom_u32];"
	"r7 = r0;"
	"r8 = 1;"
	"r8 += 1;"
	"r8 += 1;"
	"r8 += 1;"
	"if r7 == 0 goto 1f;"
	"r1 = r6;"
	"r1 += 8;"
	"r8 += 1;"
	"r8 += 1;"
	"r8 += 1;"
	"r2 = au10_rearm_cb ll;"
	"call %[bpf_timer_set_callback];"
	"r0 = 0;"
	"exit;"
"1:"	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_timer_set_callback) : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int au10_async_reenter(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[au10_timer_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 != 0 goto 1f;"
	"exit;"
"1:"	"r6 = r0;"
	"r1 = r6;"
	"r1 += 8;"
	"r2 = %[au10_timer_map] ll;"
	"r3 = 1;"
	"call %[bpf_timer_init];"
	"r1 = r6;"
	"r1 += 8;"
	"r2 = au10_rearm_cb ll;"
	"call %[bpf_timer_set_callback];"
	"r0 = 0;"
	"r1 = 0;"
	"r1 += 1;"
	"r1 += 1;"
	"r1 += 1;"
	"r1 += 1;"
	"r1 += 1;"
	"r1 += 1;"
	"if r1 == 5 goto 2f;"
"2:"	"exit;"
	:: __imm_addr(au10_timer_map), __imm(bpf_map_lookup_elem), __imm(bpf_timer_init),
	   __imm(bpf_timer_set_callback) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
