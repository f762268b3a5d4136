#include "progs.h"

/*
 * A map created with BPF_F_WRONLY_PROG may be written by the program but
 * never read: plain loads, atomics (which load first) and helpers that read
 * the value are all refused.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64[4]);
	__uint(map_flags, BPF_F_WRONLY_PROG);
} wo_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64[4]);
} wo_copy SEC(".maps");

/* Stores are fine. */
// vercheck: accept
SEC("socket")
__naked int wronly_store(void)
{
	asm volatile (
	"w1 = 1;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[wo_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"*(u32 *)(r0 + 12) = 5;"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm_addr(wo_array), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

/* A load reports the value offset it starts at. */
// vercheck: reject "read from map forbidden, value_size=32 off=20 size=2"
SEC("socket")
__naked int wronly_load(void)
{
	asm volatile (
	"w1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[wo_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r0 += 16;"
	"r0 = *(u16 *)(r0 + 4);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm_addr(wo_array), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

/* Copying the value into another map reads it through a helper. */
// vercheck: reject "read from map forbidden, value_size=32 off=8 size=32"
SEC("socket")
__naked int wronly_helper_read(void)
{
	asm volatile (
	"w1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[wo_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r3 = r0;"
	"r3 += 8;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[wo_copy] ll;"
	"r4 = 0;"
	"call %[bpf_map_update_elem];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm_addr(wo_array), __imm_addr(wo_copy), __imm(bpf_map_lookup_elem),
	  __imm(bpf_map_update_elem)
	: __clobber_all);
}

/* An atomic add loads before it stores. */
// vercheck: reject "read from map forbidden, value_size=32 off=24 size=8"
SEC("socket")
__naked int wronly_atomic(void)
{
	asm volatile (
	"w1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[wo_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r1 = 3;"
	"lock *(u64 *)(r0 + 24) += r1;"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm_addr(wo_array), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
