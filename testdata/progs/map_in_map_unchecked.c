#include "progs.h"

struct leaf {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} leaf0 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
	__array(values, struct leaf);
} outer SEC(".maps") = { .values = { [0] = &leaf0 } };

/* The inner map found in a map of maps may be NULL: using it as a helper's
 * map argument before the check is refused. */
// vercheck: reject "R1 type=map_ptr_or_null expected=map_ptr"
// vercheck: reject "R1 type=map_value_or_null expected=map_ptr" without lookup-typed-at-call
SEC("socket")
__naked int map_in_map_unchecked(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[outer] ll;"
		"call %[bpf_map_lookup_elem];"
		"r1 = r0;"
		"r2 = r10;"
		"r2 += -4;"
		"call %[bpf_map_lookup_elem];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(outer), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
