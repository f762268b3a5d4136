#include "progs.h"

/* 64-bit sign extension from 8 and 16 bits ("r = (s8) r", "r = (s16) r",
 * 1- and 2-byte BPF_MEMSX loads and fills) of a range whose 64-bit bounds
 * cannot be extended. 6.18.0 (stablefix.Sext32DropsSubreg, the first
 * verdicts) gives any value of the width. The running 6.18.44-fc-v1045
 * kernel (the "without" verdicts) falls back on the 32-bit bounds when the
 * signed 32-bit range fits in the width, as it does for 32-bit extensions
 * (a12_sext32_subreg.c): w6 in [-3, 2] gives (s16) r6 in [-3, 2]. Each
 * program adds a constant to the extended value and indexes an 8-byte map
 * value with it. The upper half of r6 is unknown (bpf_ktime_get_ns). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} f13_sx_map SEC(".maps");

/* w6 in [-3, 2]: (s16) r6 + 3 is in [0, 5]. */
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check."
// vercheck: accept without sext32-drops-subreg
SEC("socket")
__naked int f13_sext16_mov_low_half(void)
{
	asm volatile (
	"call %[bpf_ktime_get_ns];"
	"r6 = r0;"
	"if w6 s< -3 goto l0_%=;"
	"if w6 s> 2 goto l0_%=;"
	"r7 = (s16)r6;"
	"r7 += 3;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[f13_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_sx_map)
	: __clobber_all);
}

/* The same through an 8-byte spill and a 2-byte sign-extending fill (the
 * fuzz run's false reject: seed 20261206, mutant 4171). */
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check."
// vercheck: accept without sext32-drops-subreg
SEC("socket")
__naked int f13_sext16_fill_low_half(void)
{
	asm volatile (
	"call %[bpf_ktime_get_ns];"
	"r6 = r0;"
	"if w6 s< -3 goto l0_%=;"
	"if w6 s> 2 goto l0_%=;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s16 *)(r10 - 8);"
	"r7 += 3;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[f13_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_sx_map)
	: __clobber_all);
}

/* A 4-byte spill of w6 in [-7, -1] filled as s8: (s8) + 7 is in [0, 6]. */
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check."
// vercheck: accept without sext32-drops-subreg
SEC("socket")
__naked int f13_sext8_fill_negative(void)
{
	asm volatile (
	"call %[bpf_ktime_get_ns];"
	"r6 = r0;"
	"if w6 s< -7 goto l0_%=;"
	"if w6 s> -1 goto l0_%=;"
	"*(u32 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"r7 += 7;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[f13_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_sx_map)
	: __clobber_all);
}

/* w6 in [-129, 2] does not fit in s8: any s8 value on every kernel, and
 * r7 + 129 may reach 256. */
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check."
SEC("socket")
__naked int f13_sext8_mov_beyond(void)
{
	asm volatile (
	"call %[bpf_ktime_get_ns];"
	"r6 = r0;"
	"if w6 s< -129 goto l0_%=;"
	"if w6 s> 2 goto l0_%=;"
	"r7 = (s8)r6;"
	"r7 += 3;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[f13_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_sx_map)
	: __clobber_all);
}

/* w6 in [0x10000, 0x10004]: one upper half in 32 bits, but the 32-bit
 * range does not fit in s16, so no kernel looks at the low 16 bits: any
 * s16 value. */
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check."
SEC("socket")
__naked int f13_sext16_mov_above(void)
{
	asm volatile (
	"call %[bpf_ktime_get_ns];"
	"r6 = r0;"
	"if w6 < 0x10000 goto l0_%=;"
	"if w6 > 0x10004 goto l0_%=;"
	"r7 = (s16)r6;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[f13_sx_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r7;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ktime_get_ns), __imm(bpf_map_lookup_elem), __imm_addr(f13_sx_map)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
