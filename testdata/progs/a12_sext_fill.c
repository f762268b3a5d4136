#include "progs.h"

/* Sign-extending fills (BPF_MEMSX) of spilled scalars. A fill copies the
 * spilled register, id included, so a later comparison of the fill also
 * bounds the spilled register. A kernel with stablefix.SextFillUnlink
 * (this machine's 6.18.44-fc-v1045, and 7.x's check_mem_access) drops that
 * id when the sign extension may change the value: when the spilled
 * value's umax is at least 2^(8*size-1). The rule is the same whatever
 * the spill's width (8, 4, 2 or 1 bytes) and the fill's (s8, s16, s32).
 * 6.18.0 (the "without" verdicts) keeps the link, so "r7 <= 3" on the fill
 * bounds r6 to [0, 3] although r6 = 128 fills as -128.
 *
 * Each program but the last spills r6, fills r7 sign-extended, keeps
 * r7 <= 3 (unsigned) and reads an 8-byte map value at r6: accepted only
 * where the fill is linked to r6. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} a12_sf_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[256]);
} a12_sf_big SEC(".maps");

/* r6 in [0, 127]: an s8 fill cannot change sign, the link stays. */
// vercheck: accept
SEC("socket")
__naked int a12_sext_fill_s8_fits(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0x7f;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* r6 in [0, 128]: 128 fills as -128, the link goes. */
// vercheck: reject "R0 max value is outside of the allowed memory range"
// vercheck: accept without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_s8_sign(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"if r6 > 128 goto l0_%=;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* A zero-extending fill of the same value stays linked. */
// vercheck: accept
SEC("socket")
__naked int a12_zext_fill_u8(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(u8 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* r6 in [0, 255] read as s16: no sign change, linked. */
// vercheck: accept
SEC("socket")
__naked int a12_sext_fill_s16_fits(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s16 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* r6 in [0, 0x8000] read as s16: unlinked. */
// vercheck: reject "R0 max value is outside of the allowed memory range"
// vercheck: accept without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_s16_sign(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xffff;"
	"if r6 > 32768 goto l0_%=;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s16 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* r6 in [0, 0x7fffffff] read as s32: linked. */
// vercheck: accept
SEC("socket")
__naked int a12_sext_fill_s32_fits(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0x7fffffff;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s32 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* r6 in [0, 0x80000000] read as s32: unlinked, and r6 is unbounded for
 * the access. */
// vercheck: reject "R0 unbounded memory access"
// vercheck: accept without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_s32_sign(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"w6 = w0;"
	"r1 = 0x80000000 ll;"
	"if r6 > r1 goto l0_%=;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s32 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* A 4-byte spill, read as s8: the same rule. */
// vercheck: reject "R0 max value is outside of the allowed memory range"
// vercheck: accept without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_spill32_s8_sign(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"if r6 > 128 goto l0_%=;"
	"*(u32 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* A 4-byte spill of a value below 2^31, read as s32: linked. */
// vercheck: accept
SEC("socket")
__naked int a12_sext_fill_spill32_s32_fits(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0x7fffffff;"
	"*(u32 *)(r10 - 8) = r6;"
	"r7 = *(s32 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* A 2-byte spill, read as s16 with the sign bit possible: unlinked. */
// vercheck: reject "R0 max value is outside of the allowed memory range"
// vercheck: accept without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_spill16_s16_sign(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xffff;"
	"if r6 > 32768 goto l0_%=;"
	"*(u16 *)(r10 - 8) = r6;"
	"r7 = *(s16 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* A 1-byte spill, read as s8: linked below 128, unlinked from 128. */
// vercheck: accept
SEC("socket")
__naked int a12_sext_fill_spill8_s8_fits(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0x7f;"
	"*(u8 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

// vercheck: reject "R0 max value is outside of the allowed memory range"
// vercheck: accept without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_spill8_s8_sign(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"if r6 > 128 goto l0_%=;"
	"*(u8 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 > 3 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_map)
	: __clobber_all);
}

/* The rule also accepts what 6.18.0 refused: r6 in [0, 255] indexes a
 * 256-byte value. The link made "r7 s> 0" narrow r6 to [-128, 0] on the
 * fall-through (l10_sext_fill_link.c); unlinked, r6 keeps [0, 255]. */
// vercheck: accept
// vercheck: reject "R0 min value is negative, either use unsigned index or do a if (index >=0) check." without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_unlinked_in_bounds(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 s> 0 goto l0_%=;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_big] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_big)
	: __clobber_all);
}

/* Why the link must go: on the fall-through of "r7 s>= 0" the fill is in
 * [-128, -1], and a linked r6 gets those bounds too, although r6 is then
 * in [128, 255]. r6 + 256 looks like [128, 255] to 6.18.0, which accepts a
 * read 384 to 511 bytes into a 256-byte value; unlinked, r6 + 256 is at
 * least 256. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
// vercheck: accept without sext-fill-unlink
SEC("socket")
__naked int a12_sext_fill_link_unsound(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r6 &= 0xff;"
	"*(u64 *)(r10 - 8) = r6;"
	"r7 = *(s8 *)(r10 - 8);"
	"if r7 s>= 0 goto l0_%=;"
	"r6 += 256;"
	"r1 = 0;"
	"*(u32 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[a12_sf_big] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r0 += r6;"
	"r0 = *(u8 *)(r0 + 0);"
	"l0_%=: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(a12_sf_big)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
