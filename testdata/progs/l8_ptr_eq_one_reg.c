#include "progs.h"

/* Comparing a maybe-NULL pointer with a non-NULL one (JEQ/JNE of two
 * pointers) proves only the compared register non-NULL on the equal edge:
 * check_cond_jmp_op calls mark_ptr_not_null_reg on that register alone.
 * Copies of the lookup's result in other registers (the same id) stay
 * maybe-NULL until a comparison with 0. vercheck marked every register of
 * the id non-NULL, so a load through the copy was accepted (found by the
 * fuzzer as a message difference on an XSKMAP lookup). */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} l8_eq_arr SEC(".maps");

/* The copy r0 of r7 is dereferenced after r7 == r6 (non-NULL). */
// vercheck: reject "R0 invalid mem access 'map_value_or_null'"
SEC("socket")
__naked int l8_ptr_eq_copy_still_null(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 8) = r1;"
		"r9 = r10;"
		"r9 += -8;"
		"r8 = %[l8_eq_arr] ll;"
		"r1 = r8;"
		"r2 = r9;"
		"call %[bpf_map_lookup_elem];"
		"r6 = r0;"
		"r1 = r8;"
		"r2 = r9;"
		"call %[bpf_map_lookup_elem];"
		"r7 = r0;"
		"if r6 == 0 goto 1f;"
		"if r6 != r7 goto 1f;"
		"r0 = *(u64 *)(r0 + 0);"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_addr(l8_eq_arr), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* The compared register itself is non-NULL on the equal edge. */
// vercheck: accept
SEC("socket")
__naked int l8_ptr_eq_compared_reg(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 8) = r1;"
		"r9 = r10;"
		"r9 += -8;"
		"r8 = %[l8_eq_arr] ll;"
		"r1 = r8;"
		"r2 = r9;"
		"call %[bpf_map_lookup_elem];"
		"r6 = r0;"
		"r1 = r8;"
		"r2 = r9;"
		"call %[bpf_map_lookup_elem];"
		"r7 = r0;"
		"if r6 == 0 goto 1f;"
		"if r6 != r7 goto 1f;"
		"r0 = *(u64 *)(r7 + 0);"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_addr(l8_eq_arr), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
