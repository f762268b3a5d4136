#include "progs.h"

/* A packet pointer where a callback helper takes its callback function:
 * check_func_arg refuses a packet pointer to a helper without packet access
 * ("helper access to the packet is not allowed") before it compares the
 * argument's type, for ARG_PTR_TO_FUNC too (vercheck checked the callback
 * argument's type first; found by the fuzzer). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} l8_arr SEC(".maps");

/* bpf_for_each_map_elem with the packet in the callback's place. */
// vercheck: reject "helper access to the packet is not allowed"
SEC("xdp")
__naked int l8_for_each_pkt_callback(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + 0);"
		"r3 = *(u32 *)(r1 + 4);"
		"r1 = r2;"
		"r1 += 8;"
		"if r1 > r3 goto 1f;"
		"r1 = %[l8_arr] ll;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_for_each_map_elem];"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_addr(l8_arr), __imm(bpf_for_each_map_elem)
		: __clobber_all);
}

/* bpf_loop with the packet in the callback's place. */
// vercheck: reject "helper access to the packet is not allowed"
SEC("xdp")
__naked int l8_loop_pkt_callback(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + 0);"
		"r3 = *(u32 *)(r1 + 4);"
		"r1 = r2;"
		"r1 += 8;"
		"if r1 > r3 goto 1f;"
		"r1 = 4;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm(bpf_loop)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
