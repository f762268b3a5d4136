#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} table SEC(".maps");

/* Dereferences the lookup result without a NULL check. */
// vercheck: reject "R0 invalid mem access 'map_value_or_null'"
SEC("socket")
__naked int map_lookup_unchecked(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[table] ll;"
		"call %[bpf_map_lookup_elem];"
		"r0 = *(u64 *)(r0 + 0);"
		"exit;"
		:
		: __imm_addr(table), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
