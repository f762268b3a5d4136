#include "progs.h"

/* An array map lookup with a constant key below max_entries cannot return
 * NULL, so the kernel drops the NULL check (can_elide_value_nullness). An
 * inner map template flagged BPF_F_INNER_MAP says nothing of the
 * max_entries of the arrays placed in the outer map at run time: kernels
 * with the 6.18.y fix keep the check there. A template without the flag
 * pins max_entries, and the check is still elided.
 */

struct flexible_leaf {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, 1 << 12); /* BPF_F_INNER_MAP */
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__array(values, struct flexible_leaf);
} s9_outer_flexible SEC(".maps");

struct fixed_leaf {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__array(values, struct fixed_leaf);
} s9_outer_fixed SEC(".maps");

/* Key 9 of a flexible inner array: the value may be NULL. */
// vercheck: reject "R0 invalid mem access 'map_value_or_null'"
// vercheck: accept without inner-map-nullness
SEC("socket")
__naked int s9_flexible_inner_const_key(void)
{
	asm volatile(
		"*(u32 *)(r10 - 4) = 0;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[s9_outer_flexible] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"*(u32 *)(r10 - 8) = 9;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = r0;"
		"call %[bpf_map_lookup_elem];"
		"r0 = *(u64 *)(r0 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s9_outer_flexible), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* The same lookup checked for NULL first is fine everywhere. */
// vercheck: accept
SEC("socket")
__naked int s9_flexible_inner_checked(void)
{
	asm volatile(
		"*(u32 *)(r10 - 4) = 0;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[s9_outer_flexible] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"*(u32 *)(r10 - 8) = 9;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = r0;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r0 = *(u64 *)(r0 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s9_outer_flexible), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* Key 9 of an inner array whose size is fixed: never NULL. */
// vercheck: accept
SEC("socket")
__naked int s9_fixed_inner_const_key(void)
{
	asm volatile(
		"*(u32 *)(r10 - 4) = 0;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[s9_outer_fixed] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"*(u32 *)(r10 - 8) = 9;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = r0;"
		"call %[bpf_map_lookup_elem];"
		"r0 = *(u64 *)(r0 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s9_outer_fixed), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
