#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} slots SEC(".maps");

/* Negating the frame pointer's copy is fine for root: it becomes a number. */
// vercheck: accept
SEC("socket")
__naked int ptr_neg_root(void)
{
	asm volatile(
		"r0 = r10;"
		"r0 = -r0;"
		"r0 &= 1;"
		"exit;"
		::: __clobber_all);
}

/* A byte-swapped map value pointer is a plain number: storing through it fails. */
// vercheck: reject "R6 invalid mem access 'scalar'"
SEC("socket")
__naked int ptr_swap_deref(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[slots] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r6 = r0;"
		"r6 = be64 r6;"
		"r1 = 7;"
		"*(u64 *)(r6 + 0) = r1;"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_addr(slots), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
