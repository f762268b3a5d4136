// An atomic fetch whose load register is also its base register (r0 of a
// cmpxchg, src == dst of a fetch-and-add): check_atomic_rmw marks the load
// register an unknown scalar (check_reg_arg DST_OP) before it checks the
// memory access, so the access goes through a scalar and is refused (here
// by the strict alignment check of atomics, on the unknown 64-bit offset).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[4]);
} atomic_base_map SEC(".maps");

#define ATOMIC_BASE_LOOKUP \
	"r1 = 0;" \
	"*(u32 *)(r10 -4) = r1;" \
	"r1 = %[atomic_base_map] ll;" \
	"r2 = r10;" \
	"r2 += -4;" \
	"call %[bpf_map_lookup_elem];" \
	"if r0 == 0 goto l0_%=;"

// vercheck: reject "misaligned access off (0x0; 0xffffffffffffffff)+0+8 size 4"
SEC("xdp")
__naked int atomic_cmpxchg_base_r0(void)
{
	asm volatile (ATOMIC_BASE_LOOKUP
	"r9 = 8;"
	"w0 = cmpxchg32_32(r0 + 8, w0, w9);"
	"l0_%=:"
	"r0 = 2;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(atomic_base_map)
	: __clobber_all);
}

// vercheck: reject "misaligned access off (0x0; 0xffffffffffffffff)+0+8 size 8"
SEC("xdp")
__naked int atomic_fetch_add_base_src(void)
{
	asm volatile (ATOMIC_BASE_LOOKUP
	"r0 = atomic_fetch_add((u64 *)(r0 +8), r0);"
	"l0_%=:"
	"r0 = 2;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(atomic_base_map)
	: __clobber_all);
}
