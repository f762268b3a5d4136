#include "progs.h"

/* Pointer arithmetic with a linked scalar: r8 = r7 + K carries the delta K
 * of its link to r7, which is no offset. 6.18.0
 * (stablefix.LinkedDeltaOffCheck, the first expectations) checks it as one
 * (check_reg_sane_offset reads reg->off): |K| >= 2^29 is "pointer offset K
 * is not allowed" whatever the scalar's bounds. The running
 * 6.18.44-fc-v1045 kernel (the "without" expectations), as 7.x's
 * check_reg_sane_offset_scalar, checks the scalar's value only (found as a
 * message difference by the fuzz run of seed 20261301, mutant 2880.2). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} f13_ld_map SEC(".maps");

/* r7 in [-2^30, 0]: r8 = r7 + 2^30 is in [0, 2^30], a valid offset. */
// vercheck: reject "map_value pointer offset 1073741824 is not allowed"
// vercheck: accept without linked-delta-off-check
SEC("socket")
__naked int f13_linked_delta_add(void)
{
	asm volatile (
	"call %[bpf_ktime_get_ns];"
	"r7 = r0;"
	"if r7 s> 0 goto l0_%=;"
	"if r7 s< -0x40000000 goto l0_%=;"
	"r8 = r7;"
	"r8 += 0x40000000;"
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_ld_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r8;"
	"l0_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_ld_map) : __clobber_all);
}

/* Subtracting it leaves the pointer at up to -2^30: refused on every
 * kernel, after the operation where the delta is not checked. */
// vercheck: reject "map_value pointer offset 1073741824 is not allowed"
// vercheck: reject "map_value pointer offset -1073741824 is not allowed" without linked-delta-off-check
SEC("socket")
__naked int f13_linked_delta_sub(void)
{
	asm volatile (
	"call %[bpf_ktime_get_ns];"
	"r7 = r0;"
	"if r7 s> 0 goto l0_%=;"
	"if r7 s< -0x40000000 goto l0_%=;"
	"r8 = r7;"
	"r8 += 0x40000000;"
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_ld_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 -= r8;"
	"l0_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_ld_map) : __clobber_all);
}

/* The fuzz run's shape: r1 = r0 + (2^31-1), r0 in [0, 8] once r1 is
 * linked: the value is out of bounds on every kernel, the message tells. */
// vercheck: reject "map_value pointer offset 2147483647 is not allowed"
// vercheck: reject "value 2147483647 makes map_value pointer be out of bounds" without linked-delta-off-check
SEC("socket")
__naked int f13_linked_delta_value(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_ld_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r6 = r0;"
	"call %[bpf_ktime_get_ns];"
	"r1 = r0;"
	"r1 += 0x7fffffff;"
	"if r0 > 8 goto l0_%=;"
	"r6 += r1;"
	"l0_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_ld_map) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
