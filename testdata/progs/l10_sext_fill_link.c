#include "progs.h"

/* A sign-extending narrow fill of a spilled scalar that may change sign
 * (r6 in [0, 255], read back as s8): a kernel with stablefix.SextFillUnlink
 * (this machine's 6.18.44-fc-v1045, and 7.x: clear_scalar_id after
 * coerce_reg_to_size_sx) unlinks the fill, so "r7 s> 0" leaves r6 in
 * [0, 255] and the access r0 + r6 is refused for its maximum. 6.18.0
 * keeps the fill linked to the spilled register, so the comparison
 * refines r6 to [-128, 0] on the fall-through, as it does r7, and the
 * access is refused for a negative minimum. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sf_map SEC(".maps");

// vercheck: reject "R0 max value is outside of the allowed memory range"
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check." without sext-fill-unlink
SEC("socket")
__naked int l10_sext_fill_link(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 s> 0 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u64 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(sf_map)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
