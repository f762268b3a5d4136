#include "progs.h"

/* 64-bit sign extension from 32 bits ("r = (s32) r", 4-byte BPF_MEMSX
 * loads) of a range whose 64-bit bounds cannot be extended (the bits above
 * 32 differ, or the extension changes sign). 6.18.0
 * (stablefix.Sext32DropsSubreg, the first verdicts) gives any s32 value and
 * forgets the 32-bit bounds. The running 6.18.44-fc-v1045 kernel (the
 * "without" verdicts) keeps them, as sign extension from 32 bits does not
 * change the low half, and takes the 64-bit signed range from the signed
 * 32-bit one. Extensions from 8 and 16 bits are unchanged. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} a12_sx_map SEC(".maps");

/* w6 in [-3, 3], the upper half unknown: (s32) r6 + 3 is in [0, 6]. */
// vercheck: reject "value -2147483645 makes map_value pointer be out of bounds"
// vercheck: accept without sext32-drops-subreg
SEC("socket")
__naked int a12_sext32_mov_signed_half(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"if w6 s< -3 goto l0_%=;"
	"if w6 s> 3 goto l0_%=;"
	"r7 = (s32)r6;"
	"r7 += 3;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sx_map)
	: __clobber_all);
}

/* The same through a spill and a 4-byte sign-extending fill. */
// vercheck: reject "value -2147483645 makes map_value pointer be out of bounds"
// vercheck: accept without sext32-drops-subreg
SEC("socket")
__naked int a12_sext32_fill_signed_half(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"if w6 s< -3 goto l0_%=;"
	"if w6 s> 3 goto l0_%=;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s32 *)(r10 - 8);"
	"r7 += 3;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sx_map)
	: __clobber_all);
}

/* r6 in [0x7ffffffc, 0x80000003]: the extension changes sign, but the
 * low half keeps its unsigned bounds, so w7 - 0x7ffffffc is in [0, 7]. */
// vercheck: reject "R0 unbounded memory access, make sure to bounds check any such access"
// vercheck: accept without sext32-drops-subreg
SEC("socket")
__naked int a12_sext32_mov_unsigned_half(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"w6 = w0;"
	"r1 = 0x7ffffffc ll;"
	"if r6 < r1 goto l0_%=;"
	"r1 = 0x80000003 ll;"
	"if r6 > r1 goto l0_%=;"
	"r7 = (s32)r6;"
	"w7 -= 0x7ffffffc;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sx_map)
	: __clobber_all);
}

/* One upper half and one sign: the 64-bit bounds give [0, 4] either way. */
// vercheck: accept
SEC("socket")
__naked int a12_sext32_upper_half_known(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 4;"
	"r1 = 0x100000000 ll;"
	"r6 |= r1;"
	"r7 = (s32)r6;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sx_map)
	: __clobber_all);
}

/* From 16 bits nothing changed: r6 in [0x7ffc, 0x8003] as s16 is any s16,
 * with the rule or without. */
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check."
SEC("socket")
__naked int a12_sext16_unsigned_half(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xffff;"
	"if r6 < 0x7ffc goto l0_%=;"
	"if r6 > 0x8003 goto l0_%=;"
	"r7 = (s16)r6;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sx_map)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
