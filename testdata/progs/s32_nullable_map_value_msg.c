#include "progs.h"

/* A helper's nullable memory argument (bpf_csum_diff's from) given a map
 * value that may be NULL, with a size past the value: the access check
 * prints its first line by the register's whole type, flags included, so
 * a map_value_or_null is "invalid access to memory, mem_size=..." where a
 * checked map value is "invalid access to map value, value_size=..."
 * (__check_mem_access switches on reg->type, not its base type). Found by
 * the fuzz run of seed 20263201 (a mutant of the selftests'
 * ptr_to_mem_or_null_4), as a log difference. */
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} s32_hash SEC(".maps");

/* The value unchecked: "memory". */
// vercheck: reject "R1 min value is outside of the allowed memory range"
SEC("tc")
__naked int s32_or_null_too_long(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[s32_hash] ll;"
	"call %[bpf_map_lookup_elem];"
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"r1 = r6;"
	"r2 = r0;"
	"r2 &= 0xff;"
	"r2 += 9;"
	"r3 = 0;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_csum_diff];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(s32_hash), __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32),
	   __imm(bpf_csum_diff) : __clobber_all);
}

/* The value checked: "map value". */
// vercheck: reject "R1 min value is outside of the allowed memory range"
SEC("tc")
__naked int s32_checked_too_long(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[s32_hash] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"r1 = r6;"
	"r2 = r0;"
	"r2 &= 0xff;"
	"r2 += 9;"
	"r3 = 0;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_csum_diff];"
	"1:"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(s32_hash), __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32),
	   __imm(bpf_csum_diff) : __clobber_all);
}

/* Within the value, unchecked: accepted (NULL is fine for this argument). */
// vercheck: accept
SEC("tc")
__naked int s32_or_null_fits(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[s32_hash] ll;"
	"call %[bpf_map_lookup_elem];"
	"r1 = r0;"
	"r2 = 8;"
	"r3 = 0;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_csum_diff];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(s32_hash), __imm(bpf_map_lookup_elem), __imm(bpf_csum_diff) : __clobber_all);
}
