// An outer map's values are 4-byte inner map fds: a BTF map-in-map
// definition with a key_size and no value type gives no value size, and
// loaders create the outer map with 4.
// bpf_map_update_elem checks its value argument against that size before
// check_map_func_compatibility refuses the outer map.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct sd2_leaf {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sd2_leaf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__uint(key_size, sizeof(__u32));
	__array(values, struct sd2_leaf);
} sd2_outer SEC(".maps") = {
	.values = { &sd2_leaf },
};

// vercheck: reject "cannot pass map_type 12 into func bpf_map_update_elem#2"
SEC("socket")
__naked int sd2_outer_update(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r3 = r10;"
	"r3 += -8;"
	"r4 = 0;"
	"r1 = %[sd2_outer] ll;"
	"call %[bpf_map_update_elem];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(sd2_outer), __imm(bpf_map_update_elem) : __clobber_all);
}

// The value read is four bytes: a value from a two-byte buffer is refused.
// vercheck: reject "invalid read from stack R3 off=-2 size=4"
SEC("socket")
__naked int sd2_outer_update_short(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"*(u16 *)(r10 - 2) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r3 = r10;"
	"r3 += -2;"
	"r4 = 0;"
	"r1 = %[sd2_outer] ll;"
	"call %[bpf_map_update_elem];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(sd2_outer), __imm(bpf_map_update_elem) : __clobber_all);
}
