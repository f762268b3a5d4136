#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[8]);
} slots SEC(".maps");

/* Indexes a map value with an unchecked packet length. */
// vercheck: reject "R0 unbounded memory access, make sure to bounds check any such access"
SEC("socket")
__naked int map_value_unbounded(void)
{
	asm volatile(
		"r6 = *(u32 *)(r1 + %[len_off]);"
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[slots] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r0 += r6;"
		"r0 = *(u8 *)(r0 + 0);"
		"1:"
		"exit;"
		:
		: __imm_addr(slots), __imm(bpf_map_lookup_elem),
		  __imm_const(len_off, __builtin_offsetof(struct __sk_buff, len))
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
