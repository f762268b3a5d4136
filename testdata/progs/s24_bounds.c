#include "progs.h"

/* Scalar bounds as 6.18 computes them. sync_linked_regs adds a linked
 * register's delta with one reg_bounds_sync after the 32-bit zero
 * extension: a sync before it would learn smax32 = 0x7ffffffe from the
 * unextended sum, which the kernel never learns, and skip the branch to
 * the bad read. reg_bounds_sync runs __reg_deduce_bounds three times: only
 * the third carries a subregister range learned through 64-bit bounds back,
 * so [0xffffffc1, 0xfffffffe] + 0x40 is [1, 62] and a 2-byte read at that
 * offset of a 64-byte value is in bounds. (Found by a review of the ALU and
 * branch code against the live kernel.) */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[64]);
} sb_m SEC(".maps");

/* r9 = the map value (64 bytes); r1, r2 = random u64s. */
#define SB_PRO                                                                         \
	"r1 = 0; *(u32 *)(r10 - 4) = r1; r2 = r10; r2 += -4; r1 = %[sb_m] ll;"         \
	"call %[bpf_map_lookup_elem]; if r0 != 0 goto 1f; exit; 1: r9 = r0;"           \
	"call %[bpf_get_prandom_u32]; r6 = r0; call %[bpf_get_prandom_u32]; r7 = r0;"   \
	"r7 <<= 32; r6 |= r7; call %[bpf_get_prandom_u32]; r7 = r0;"                   \
	"call %[bpf_get_prandom_u32]; r8 = r0; r8 <<= 32; r7 |= r8; r1 = r6; r2 = r7;"
#define SB_ARGS __imm_addr(sb_m), __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32)

// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("socket")
__naked int sb_link32_sync(void)
{
	asm volatile(SB_PRO
		"w2 = w7; w1 = w2; w2 += -2147483648; if r1 s<= r2 goto 9f;"
		"if w1 s> 0x7ffffffe goto 8f; 9: r0 = 0; exit; 8: r0 = *(u64 *)(r10 + 8); exit;"
		:: SB_ARGS : __clobber_all);
}

// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("socket")
__naked int sb_link32_sync2(void)
{
	asm volatile(SB_PRO
		"w2 = w7; w1 = w2; w1 += 0x7ffffff0; if r2 > 0xfffffffe goto 9f;"
		"if w1 == 0x7fffffef goto 8f; 9: r0 = 0; exit; 8: r0 = *(u64 *)(r10 + 8); exit;"
		:: SB_ARGS : __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int sb_deduce3(void)
{
	asm volatile(SB_PRO
		"if r2 s> 63 goto 9f; if r2 s< -63 goto 9f; if r2 < 1 goto 9f; if r2 == -1 goto 9f;"
		"if w2 <= 0xff00 goto 9f; w2 += 0x40; r9 += r2; r0 = *(u16 *)(r9 + 0); 9: r0 = 0; exit;"
		:: SB_ARGS : __clobber_all);
}

char _license[] SEC("license") = "GPL";
