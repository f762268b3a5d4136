#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[4]);
} counters SEC(".maps");

/* A plain store at value offset 4 is fine, an atomic add there is not:
 * atomics must be naturally aligned whatever the pointer kind. */
// vercheck: reject "misaligned value access off 0+0+4 size 8"
SEC("tc")
__naked int atomic_misaligned(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[counters] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r1 = 1;"
		"*(u64 *)(r0 + 4) = r1;"
		"lock *(u64 *)(r0 + 4) += r1;"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_addr(counters), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* The same add on an aligned offset is accepted. */
// vercheck: accept
SEC("tc")
__naked int atomic_aligned(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[counters] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r1 = 1;"
		"lock *(u64 *)(r0 + 8) += r1;"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_addr(counters), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
