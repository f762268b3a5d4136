#include "progs.h"

/*
 * A map given to the program with BPF_F_RDONLY_PROG can be looked up, but
 * helpers that change its entries are refused at the call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
	__uint(map_flags, BPF_F_RDONLY_PROG);
} ro_hash SEC(".maps");

// vercheck: accept
SEC("socket")
__naked int rdonly_lookup(void)
{
	asm volatile (
	"w1 = 3;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[ro_hash] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r0 = *(u32 *)(r0 + 0);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm_addr(ro_hash), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

// vercheck: reject "write into map forbidden"
SEC("socket")
__naked int rdonly_delete(void)
{
	asm volatile (
	"w1 = 3;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[ro_hash] ll;"
	"call %[bpf_map_delete_elem];"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(ro_hash), __imm(bpf_map_delete_elem)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
