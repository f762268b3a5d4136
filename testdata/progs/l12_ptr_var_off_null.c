#include "progs.h"

/* A pointer that cannot be NULL, moved by a variable offset that may reach
 * BPF_MAX_VAR_OFF (2^29: pointer arithmetic checks only the offset's
 * minimum), is not known to be non-NULL on this build (stablefix
 * PtrVarOffNull): "if r0 == 0" explores both edges. Smaller variable
 * offsets and fixed offsets leave the compare decided. Each program reads
 * uninitialised stack on the NULL edge. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, int);
	__type(value, __u64);
} l12_pn_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} l12_pn_rb SEC(".maps");

/* r0 = map value of key 0 (never NULL), r6 = random & MASK, then "r0 +=
 * r6; r0 += OFF" and the compare. */
#define L12_PN_BODY(mask, off)                                  \
	asm volatile(                                           \
		"call %[bpf_get_prandom_u32];"                  \
		"r6 = r0;"                                      \
		"r6 &= " #mask ";"                              \
		"r1 = 0;"                                       \
		"*(u32 *)(r10 - 16) = r1;"                      \
		"r2 = r10;"                                     \
		"r2 += -16;"                                    \
		"r1 = %[l12_pn_map] ll;"                        \
		"call %[bpf_map_lookup_elem];"                  \
		"r0 += r6;"                                     \
		"r0 += " #off ";"                               \
		"if r0 == 0 goto 1f;"                           \
		"r0 = 0;"                                       \
		"exit;"                                         \
	"1:"                                                    \
		"r0 = *(u64 *)(r10 + 8);"                       \
		"exit;"                                         \
		:                                               \
		: __imm(bpf_get_prandom_u32),                   \
		  __imm(bpf_map_lookup_elem),                   \
		  __imm_addr(l12_pn_map)                        \
		: __clobber_all)

/* The offset may reach 2^29: both edges. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without ptr-var-off-null
SEC("socket")
__naked int l12_pn_var_2p29(void)
{
	L12_PN_BODY(0x3fffffff, 0);
}

/* At most 2^29 - 1 (0x1fffffff): decided. */
// vercheck: accept
SEC("socket")
__naked int l12_pn_var_below(void)
{
	L12_PN_BODY(0x1fffffff, 0);
}

/* 0x1ffffff8 + 8: the fixed part does not count. */
// vercheck: accept
SEC("socket")
__naked int l12_pn_var_below_plus_const(void)
{
	L12_PN_BODY(0x1ffffff8, 8);
}

/* Small offsets: decided. */
// vercheck: accept
SEC("socket")
__naked int l12_pn_var_small(void)
{
	L12_PN_BODY(7, 100000);
}

/* JNE: the same. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without ptr-var-off-null
SEC("socket")
__naked int l12_pn_var_ne(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r6 = r0;"
		"r6 &= 0x3fffffff;"
		"r1 = 0;"
		"*(u32 *)(r10 - 16) = r1;"
		"r2 = r10;"
		"r2 += -16;"
		"r1 = %[l12_pn_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"r0 += r6;"
		"if r0 != 0 goto 1f;"
		"r0 = *(u64 *)(r10 + 8);"
		"exit;"
	"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(l12_pn_map)
		: __clobber_all);
}

/* A ring buffer record (memory) moved the same way. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without ptr-var-off-null
SEC("socket")
__naked int l12_pn_mem_2p29(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r6 = r0;"
		"r6 &= 0x3fffffff;"
		"r1 = %[l12_pn_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"if r0 == 0 goto 2f;"
		"r7 = r0;"
		"r7 += r6;"
		"if r7 == 0 goto 1f;"
		"r1 = r0;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard];"
	"2:"
		"r0 = 0;"
		"exit;"
	"1:"
		"r1 = r0;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard];"
		"r0 = *(u64 *)(r10 + 8);"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32), __imm(bpf_ringbuf_reserve),
		  __imm(bpf_ringbuf_discard), __imm_addr(l12_pn_rb)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
