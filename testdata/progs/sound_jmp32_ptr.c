#include "progs.h"

/* 32-bit compares of pointers. A kernel without the jmp32-ptr-null stable
 * fix (6.18.44-fc-v973) decides a compare of a pointer that cannot be NULL
 * (reg_not_null) with the constant 0 for JMP32 as for JMP: == never holds,
 * != always does; one with the fix explores both edges of the JMP32 one. Any other compare involving a
 * pointer (a pointer that may be NULL or whose kind reg_not_null does not
 * list, another constant, another pointer, an ordering) explores both edges,
 * and JMP32 never turns a maybe-NULL pointer into a checked one. Each
 * program puts an out-of-bounds read on the edge in question. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} sound_jmp32_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} sound_jmp32_hash SEC(".maps");

/* A constant key of an array map gives a map value that is not NULL: the
 * branch to the read is taken only where the fix explores it. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
// vercheck: accept without jmp32-ptr-null
SEC("socket")
__naked int sound_jmp32_map_value_eq(void)
{
	asm volatile(
		"*(u32 *)(r10 - 8) = 0;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[sound_jmp32_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"if w0 == 0 goto l0_%=;"
		"r0 = 0;"
		"exit;"
	"l0_%=:"
		"r0 = *(u64 *)(r0 + 1000);"
		"exit;"
		:
		: __imm_addr(sound_jmp32_array), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* The same through a register holding 0 in its low half only. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
// vercheck: accept without jmp32-ptr-null
SEC("socket")
__naked int sound_jmp32_map_value_ne_reg(void)
{
	asm volatile(
		"*(u32 *)(r10 - 8) = 0;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[sound_jmp32_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"r1 = 1;"
		"r1 <<= 32;"
		"if w1 != w0 goto l0_%=;"
		"r0 = *(u64 *)(r0 + 1000);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(sound_jmp32_array), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* An ordering compare with 0 is not decided. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
SEC("socket")
__naked int sound_jmp32_map_value_gt(void)
{
	asm volatile(
		"*(u32 *)(r10 - 8) = 0;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[sound_jmp32_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"if w0 > 0 goto l0_%=;"
		"r0 = *(u64 *)(r0 + 1000);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(sound_jmp32_array), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* A hash map value may be NULL: both edges, and the JMP32 compare does not
 * check it. */
// vercheck: reject "R0 invalid mem access 'map_value_or_null'"
SEC("socket")
__naked int sound_jmp32_map_value_or_null(void)
{
	asm volatile(
		"*(u32 *)(r10 - 8) = 0;"
		"r2 = r10;"
		"r2 += -8;"
		"r1 = %[sound_jmp32_hash] ll;"
		"call %[bpf_map_lookup_elem];"
		"if w0 != 0 goto l0_%=;"
		"r0 = 0;"
		"exit;"
	"l0_%=:"
		"r0 = *(u64 *)(r0 + 0);"
		"exit;"
		:
		: __imm_addr(sound_jmp32_hash), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* A trusted task pointer is not NULL. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without jmp32-ptr-null
SEC("tp_btf/task_newtask")
__naked int sound_jmp32_trusted_btf(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"if w0 != 0 goto l0_%=;"
		"r0 = *(u64 *)(r10 + 8);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf)
		: __clobber_all);
}

/* A stack or packet pointer is not one reg_not_null knows. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("tc")
__naked int sound_jmp32_stack_ptr(void)
{
	asm volatile(
		"r1 = r10;"
		"if w1 != 0 goto l0_%=;"
		"r0 = *(u64 *)(r10 + 8);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("tc")
__naked int sound_jmp32_pkt_ptr(void)
{
	asm volatile(
		"r1 = *(u32 *)(r1 + 76);"
		"if w1 != 0 goto l0_%=;"
		"r0 = *(u64 *)(r10 + 8);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* Two pointers. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("tc")
__naked int sound_jmp32_ptr_ptr(void)
{
	asm volatile(
		"r2 = r10;"
		"if w1 != w2 goto l0_%=;"
		"r0 = *(u64 *)(r10 + 8);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
