#include "progs.h"

/* "if r1 == r2" of a maybe-NULL map value and another pointer: on kernels
 * with stablefix.PtrEqNotNull (7.x's check_cond_jmp_op, this build) the
 * equal edge proves the value non-NULL only when the other pointer is of a
 * kind that is never NULL (reg_not_null); a stack pointer is not one. */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u64);
	__type(value, __u64);
} l12_pe_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} l12_pe_array SEC(".maps");

/* Equal to the frame pointer: still maybe NULL. */
// vercheck: reject "R8 invalid mem access 'map_value_or_null'"
// vercheck: accept without ptr-eq-not-null
SEC("socket")
__naked int l12_pe_stack(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[l12_pe_hash] ll;"
		"call %[bpf_map_lookup_elem];"
		"r8 = r0;"
		"if r8 != r10 goto 1f;"
		"r1 = *(u64 *)(r8 + 0);"
	"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_map_lookup_elem), __imm_addr(l12_pe_hash)
		: __clobber_all);
}

/* Equal to a map value of a constant key of an array (never NULL): not
 * NULL either way. */
// vercheck: accept
SEC("socket")
__naked int l12_pe_map_value(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[l12_pe_hash] ll;"
		"call %[bpf_map_lookup_elem];"
		"r8 = r0;"
		"r1 = 0;"
		"*(u32 *)(r10 - 16) = r1;"
		"r2 = r10;"
		"r2 += -16;"
		"r1 = %[l12_pe_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r8 != r0 goto 1f;"
		"r1 = *(u64 *)(r8 + 0);"
	"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_map_lookup_elem), __imm_addr(l12_pe_hash), __imm_addr(l12_pe_array)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
