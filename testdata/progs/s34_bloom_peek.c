#include "progs.h"
char _license[] SEC("license") = "GPL";

/* bpf_map_peek_elem() on a bloom filter: 6.18's resolve_map_arg_type turns
 * the value argument into a plain ARG_PTR_TO_MAP_VALUE (a READ of
 * value_size bytes), not the MEM_UNINIT|MEM_WRITE of the helper's proto.
 * vercheck took it as a write for every map type: it accepted a value in a
 * map the program may only write, refused one in .rodata, and wiped a
 * spilled pointer in the value. Found by session 34's review of memory
 * regions against the live kernel. */
struct { __uint(type, BPF_MAP_TYPE_BLOOM_FILTER); __uint(max_entries, 4); __uint(value_size, 13); } s34_bloom SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __uint(map_flags, BPF_F_WRONLY_PROG); __type(key, __u32); __type(value, char[16]); } s34_wronly SEC(".maps");
const volatile char s34_ro[16] = {1};

/* false accept: the value lives in a map the program may only write */
// vercheck: reject "read from map forbidden, value_size=16 off=0 size=13"
SEC("tc")
__naked int s34_bloom_peek_wronly_value(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[s34_wronly] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r2 = r0;"
	"r1 = %[s34_bloom] ll;"
	"call %[bpf_map_peek_elem];"
"l0_%=:"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(s34_wronly), __imm_addr(s34_bloom), __imm(bpf_map_lookup_elem), __imm(bpf_map_peek_elem)
	: __clobber_all);
}

/* false reject: the value lives in .rodata (read-only to the program) */
// vercheck: accept
SEC("tc")
__naked int s34_bloom_peek_rodata_value(void)
{
	asm volatile (
	"r2 = %[s34_ro] ll;"
	"r1 = %[s34_bloom] ll;"
	"call %[bpf_map_peek_elem];"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(s34_ro), __imm_addr(s34_bloom), __imm(bpf_map_peek_elem)
	: __clobber_all);
}

/* message: an out-of-bounds stack value is a read, not a write */
// vercheck: reject "invalid read from stack R2 off=-12 size=13"
SEC("tc")
__naked int s34_bloom_peek_stack_oob(void)
{
	asm volatile (
	"r2 = r10;"
	"r2 += -12;"
	"r1 = %[s34_bloom] ll;"
	"call %[bpf_map_peek_elem];"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(s34_bloom), __imm(bpf_map_peek_elem)
	: __clobber_all);
}

/* log: the helper does not write the stack (no fp-8=mmmmmmmm after the call),
 * so a spilled pointer survives it and can be dereferenced */
// vercheck: accept
SEC("tc")
__naked int s34_bloom_peek_keeps_spill(void)
{
	asm volatile (
	"*(u64 *)(r10 - 16) = r1;"
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -16;"
	"r1 = %[s34_bloom] ll;"
	"call %[bpf_map_peek_elem];"
	"r1 = *(u64 *)(r10 - 16);"
	"r0 = *(u32 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(s34_bloom), __imm(bpf_map_peek_elem)
	: __clobber_all);
}

/* log only: both accept, but vercheck turns the zeroed slots into
 * STACK_MISC at the call ("fp-8=mmmmmmmm fp-16=mmmmmmmm"); the kernel leaves
 * fp-8=0 fp-16=0 (no write), so the states printed after the call differ */
// vercheck: accept
SEC("tc")
__naked int s34_bloom_peek_log_only(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"*(u64 *)(r10 - 16) = r1;"
	"r2 = r10;"
	"r2 += -13;"
	"r1 = %[s34_bloom] ll;"
	"call %[bpf_map_peek_elem];"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(s34_bloom), __imm(bpf_map_peek_elem)
	: __clobber_all);
}
