#include "progs.h"

/* Programs whose verdict depends on a 6.18.y stable fix (package
 * stablefix): the first expectation is the verdict of a kernel with the
 * fix, the "without" line the verdict of one that lacks it. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} fix_array SEC(".maps");

/* r9 >= data_end leaves r9 BEYOND_PKT_END. Moving r9 back by a constant
 * must forget that: the next comparison proves nothing about r9 + 0. */
// vercheck: reject "R9 offset is outside of the packet"
// vercheck: accept without pkt-range-arith
SEC("tc")
__naked int fix_pkt_range_sub_const(void)
{
	asm volatile(
		"r9 = *(u32 *)(r1 + %[data]);"
		"r8 = *(u32 *)(r1 + %[data_end]);"
		"r9 += 64;"
		"if r9 >= r8 goto 1f;"
		"r0 = 0;"
		"exit;"
		"1:"
		"r9 -= 64;"
		"if r9 < r8 goto 2f;"
		"r0 = 0;"
		"exit;"
		"2:"
		"r0 = *(u8 *)(r9 + 0);"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

/* The same with the distance in a register. */
// vercheck: reject "R9 offset is outside of the packet"
// vercheck: accept without pkt-range-arith
SEC("tc")
__naked int fix_pkt_range_sub_reg(void)
{
	asm volatile(
		"r9 = *(u32 *)(r1 + %[data]);"
		"r8 = *(u32 *)(r1 + %[data_end]);"
		"r7 = 64;"
		"r9 += r7;"
		"if r9 >= r8 goto 1f;"
		"r0 = 0;"
		"exit;"
		"1:"
		"r9 -= r7;"
		"if r9 < r8 goto 2f;"
		"r0 = 0;"
		"exit;"
		"2:"
		"r0 = *(u8 *)(r9 + 0);"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

/* data <= data_end on the fall-through leaves data AT_PKT_END-ish; a copy
 * moved forward by 16 must not decide "data_end < r3" statically, so the
 * stack read behind it is reached. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without pkt-range-arith
SEC("xdp")
__naked int fix_pkt_range_add_const(void)
{
	asm volatile(
		"r8 = *(u32 *)(r1 + %[data]);"
		"r9 = *(u32 *)(r1 + %[data_end]);"
		"if r8 > r9 goto 1f;"
		"r0 = 0;"
		"exit;"
		"1:"
		"r3 = r8;"
		"r3 += 16;"
		"if r9 < r3 goto 2f;"
		"r0 = *(u64 *)(r10 + 8);"
		"exit;"
		"2:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct xdp_md, data)),
		  __imm_const(data_end, offsetof(struct xdp_md, data_end))
		: __clobber_all);
}

/* A constant in-range key makes the array lookup non-NULL. The 32-bit
 * half of that pointer may still be 0: "if w0 == 0" is explored. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
// vercheck: accept without jmp32-ptr-null
SEC("xdp")
__naked int fix_jmp32_ptr_const_key(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 8) = r1;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[fix_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"if w0 == 0 goto 1f;"
		"r0 = 0;"
		"exit;"
		"1:"
		"r0 = *(u64 *)(r0 + 1000);"
		"exit;"
		:
		: __imm_addr(fix_array), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* After a 64-bit NULL check, "if w0 != 0" on the pointer is not decided
 * either: its fall-through is explored. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
// vercheck: accept without jmp32-ptr-null
SEC("xdp")
__naked int fix_jmp32_ptr_checked(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 8) = r1;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[fix_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"if w0 != 0 goto 1f;"
		"r0 = *(u64 *)(r0 + 1000);"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(fix_array), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}


/* fp-8 holds 1024 on the path walked first, 8 on the other; a fetching
 * atomic brings it into r2, then an offset into the stack. Only if the
 * fetch makes fp-8 precise is the second path kept from being pruned
 * against the first (where 1024 is out of the stack). */
#define FETCH_PREC_BODY(fetch)						\
	asm volatile(							\
		"call %[bpf_get_prandom_u32];"				\
		"r1 = 1024;"						\
		"*(u64 *)(r10 - 8) = r1;"				\
		"if r0 == 0 goto 1f;"					\
		"r1 = 8;"						\
		"*(u64 *)(r10 - 8) = r1;"				\
		"if r0 == 5 goto +0;"					\
		"r4 = 0;"						\
		"r4 = 0;"						\
		"r4 = 0;"						\
		"r4 = 0;"						\
		"r4 = 0;"						\
		"if r0 == 6 goto +0;"					\
		"1:"							\
		"r0 = 0;"						\
		"r2 = 0;"						\
		fetch							\
		"r3 = r10;"						\
		"r3 += -64;"						\
		"r3 += r2;"						\
		"r0 = *(u8 *)(r3 + 0);"					\
		"r0 = 0;"						\
		"exit;"							\
		: : __imm(bpf_get_prandom_u32) : __clobber_all)

// vercheck: reject "invalid read from stack R3 off=960 size=1"
// vercheck: accept without atomic-fetch-precise
SEC("socket")
__naked int fix_atomic_fetch_add_precise(void)
{
	FETCH_PREC_BODY("r2 = atomic_fetch_add((u64 *)(r10 - 8), r2);");
}

// vercheck: reject "invalid read from stack R3 off=960 size=1"
// vercheck: accept without atomic-fetch-precise
SEC("socket")
__naked int fix_atomic_xchg_precise(void)
{
	FETCH_PREC_BODY("r2 = xchg_64(r10 - 8, r2);");
}

// vercheck: reject "invalid read from stack R3 off=960 size=1"
// vercheck: accept without atomic-fetch-precise
SEC("socket")
__naked int fix_atomic_cmpxchg_precise(void)
{
	FETCH_PREC_BODY("r0 = cmpxchg_64(r10 - 8, r0, r2); r2 = r0;");
}

char _license[] SEC("license") = "GPL";
