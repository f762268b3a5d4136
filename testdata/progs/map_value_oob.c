#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} small SEC(".maps");

/* Reads four bytes at offset 8 of an 8-byte map value. The kernel first logs
 * "invalid access to map value, value_size=8 off=8 size=4", then the
 * decisive line below. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
SEC("socket")
__naked int map_value_oob(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[small] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r0 = *(u32 *)(r0 + 8);"
		"1:"
		"exit;"
		:
		: __imm_addr(small), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
