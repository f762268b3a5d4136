#include "progs.h"

/* clang-19 has no assembler syntax for load-acquire / store-release, so
 * the instructions are spelled as raw bytes: opcode (STX | ATOMIC | size),
 * dst/src registers, 16-bit offset, then imm 0x100 (acquire) or 0x110
 * (release), all little-endian. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[2]);
} slots SEC(".maps");

/* A 64-bit acquire-load of a spilled constant gives the constant back, so
 * it can index the stack: the precision walk treats it as a fill. */
// vercheck: accept
SEC("socket")
__naked int acquire_fill_index(void)
{
	asm volatile(
		"r1 = 3;"
		"*(u64 *)(r10 - 8) = r1;"
		/* r2 = load_acquire((u64 *)(r10 - 8)) */
		".byte 0xdb, 0xa2, 0xf8, 0xff, 0x00, 0x01, 0x00, 0x00;"
		"r3 = r10;"
		"r3 += -16;"
		"r3 += r2;"
		"r0 = 0;"
		"*(u8 *)(r3 + 0) = r0;"
		"exit;"
		::: __clobber_all);
}

/* The context takes no atomic loads, even at a readable offset. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
SEC("socket")
__naked int acquire_from_ctx(void)
{
	asm volatile(
		/* w0 = load_acquire((u32 *)(r1 + 0)) */
		".byte 0xc3, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"exit;"
		::: __clobber_all);
}

/* A release-store must be naturally aligned even in a map value. */
// vercheck: reject "misaligned value access off 0+0+4 size 8"
SEC("tc")
__naked int release_misaligned(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[slots] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r1 = 1;"
		/* store_release((u64 *)(r0 + 4), r1) */
		".byte 0xdb, 0x10, 0x04, 0x00, 0x10, 0x01, 0x00, 0x00;"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_addr(slots), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* A one-byte release-store into a checked packet is in bounds and aligned,
 * and still refused: packets take no atomics. */
// vercheck: reject "BPF_ATOMIC stores into R2 pkt is not allowed"
SEC("tc")
__naked int release_to_packet(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + %[data]);"
		"r3 = *(u32 *)(r1 + %[data_end]);"
		"r4 = r2;"
		"r4 += 1;"
		"if r4 > r3 goto 1f;"
		"r5 = 7;"
		/* store_release((u8 *)(r2 + 0), w5) */
		".byte 0xd3, 0x52, 0x00, 0x00, 0x10, 0x01, 0x00, 0x00;"
		"1: r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
