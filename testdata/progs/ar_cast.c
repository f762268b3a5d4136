#include "progs.h"

/* BPF arenas: address-space casts, arithmetic and memory access through
 * arena pointers. "rX = addr_space_cast(rY, 0, 1)" (ALU64 MOV X, off 1,
 * imm 1) makes rX an arena pointer whatever rY held; the opposite cast
 * (imm 1<<16) gives a plain number. A program may cast only when it
 * names an arena map somewhere (check_map_prog_compatibility sets the
 * program's arena when resolve_pseudo_ldimm64 meets the map). Arena
 * accesses are not bounded: the JIT makes them fault safely. */

#define AR_MAP_TYPE_ARENA 33
#define AR_F_MMAPABLE 1024

/* The 32-bit form of the cast: ALU MOV X with off 1 (not encodable in
 * assembly text). */
#define W1_CAST_W2 ".byte 0xbc, 0x21; .short 1; .long 1;"

struct {
	__uint(type, AR_MAP_TYPE_ARENA);
	__uint(map_flags, AR_F_MMAPABLE);
	__uint(max_entries, 4);
} ar_arena SEC(".maps");

struct {
	__uint(type, AR_MAP_TYPE_ARENA);
	__uint(map_flags, AR_F_MMAPABLE);
	__uint(max_entries, 1);
} ar_arena2 SEC(".maps");

// vercheck: accept
SEC("xdp")
__naked int ar_cast_load_store(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"call %[bpf_get_prandom_u32];"
	"r1 = r0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r3 = *(u64 *)(r1 + 0);"
	"*(u32 *)(r1 - 4096) = r3;"
	"*(u8 *)(r1 + 30000) = 7;"
	"r0 = *(u16 *)(r1 + 8);"
	"r0 &= 1;"
	"exit;"
	:: __imm_addr(ar_arena), __imm(bpf_get_prandom_u32) : __clobber_all);
}

// vercheck: reject "addr_space_cast insn can only be used in a program that has an associated arena"
SEC("xdp")
__naked int ar_cast_no_arena(void)
{
	asm volatile (
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: reject "addr_space_cast insn can only convert between address space 1 and 0"
SEC("xdp")
__naked int ar_cast_bad_space(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 2);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

// vercheck: reject "BPF_MOV uses reserved fields"
SEC("xdp")
__naked int ar_cast_32bit(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r2 = 0;"
	W1_CAST_W2
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

// vercheck: reject "R3 !read_ok"
SEC("xdp")
__naked int ar_cast_uninit(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = addr_space_cast(r3, 0, 1);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* Any register becomes an arena pointer, the context included. */
// vercheck: accept
SEC("xdp")
__naked int ar_cast_from_ctx(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r0 = *(u32 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* The cast to the user's address space gives a number. */
// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("xdp")
__naked int ar_cast_to_user(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r1 = addr_space_cast(r1, 1, 0);"
	"r0 = *(u32 *)(r1 + 0);"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* Any arithmetic keeps an arena pointer, 32-bit operations and a
 * pointer source included. */
// vercheck: accept
SEC("xdp")
__naked int ar_arith(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"call %[bpf_get_prandom_u32];"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r1 += r0;"
	"r1 *= 3;"
	"w1 += 5;"
	"r1 ^= r10;"
	"r1 <<= 2;"
	"*(u64 *)(r1 + 0) = r0;"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena), __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* A scalar plus an arena pointer is the arena pointer: so is a context
 * pointer times one. */
// vercheck: accept
SEC("xdp")
__naked int ar_scalar_plus_arena(void)
{
	asm volatile (
	"r6 = r1;"
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r2 = 8;"
	"r2 += r1;"
	"r0 = *(u32 *)(r2 + 0);"
	"r6 *= r1;"
	"r0 = *(u32 *)(r6 + 0);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* Pointers may be stored into the arena; what is loaded back is a
 * number. */
// vercheck: reject "R3 invalid mem access 'scalar'"
SEC("xdp")
__naked int ar_store_pointer(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"*(u64 *)(r1 + 0) = r10;"
	"*(u64 *)(r1 + 8) = r2;"
	"r3 = *(u64 *)(r1 + 0);"
	"r0 = *(u64 *)(r3 - 8);"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* An arena pointer survives a spill and a fill. */
// vercheck: accept
SEC("xdp")
__naked int ar_spill_fill(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = 0;"
	"r3 = *(u64 *)(r10 - 8);"
	"r0 = *(u32 *)(r3 + 16);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* Arena pointers of different values are equivalent states: the second
 * path is pruned at the join. Comparing one with NULL decides nothing. */
// vercheck: accept
SEC("xdp")
__naked int ar_prune(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"if r6 > 10 goto l0_%=;"
	"r1 += 4096;"
"l0_%=:"
	"if r1 == 0 goto l1_%=;"
	"r0 = *(u32 *)(r1 + 0);"
"l1_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena), __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* An arena pointer is no memory argument of a helper. */
// vercheck: reject "R1 type=arena expected=fp"
SEC("xdp")
__naked int ar_helper_arg(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_probe_read_kernel];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena), __imm(bpf_probe_read_kernel) : __clobber_all);
}

/* Atomic operations on the arena. */
// vercheck: accept
SEC("xdp")
__naked int ar_atomic(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r3 = 1;"
	"lock *(u64 *)(r1 + 0) += r3;"
	"r3 = atomic_fetch_add((u64 *)(r1 + 8), r3);"
	"r0 = 0;"
	"r0 = cmpxchg_64(r1 + 16, r0, r3);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* Sign-extending loads from the arena. */
// vercheck: accept
SEC("xdp")
__naked int ar_load_sx(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r1 = 0;"
	"r1 = addr_space_cast(r1, 0, 1);"
	"r0 = *(s16 *)(r1 + 2);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* One arena per program. */
// vercheck: reject "Only one arena per program"
SEC("xdp")
__naked int ar_two_arenas(void)
{
	asm volatile (
	"r2 = %[ar_arena] ll;"
	"r3 = %[ar_arena2] ll;"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena), __imm_addr(ar_arena2) : __clobber_all);
}

/* The arena map's own struct (bpf_arena, which begins with its
 * struct bpf_map) can be read through the map pointer: max_entries. */
// vercheck: accept
SEC("xdp")
__naked int ar_map_fields(void)
{
	asm volatile (
	"r1 = %[ar_arena] ll;"
	"r0 = *(u32 *)(r1 + 76);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}

/* Map helpers see an arena map of value size 0. */
// vercheck: reject "invalid zero-sized read"
SEC("xdp")
__naked int ar_lookup(void)
{
	asm volatile (
	"r1 = %[ar_arena] ll;"
	"r2 = r10;"
	"r2 += -4;"
	"r3 = 0;"
	"*(u32 *)(r10 - 4) = r3;"
	"call %[bpf_map_lookup_elem];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena), __imm(bpf_map_lookup_elem) : __clobber_all);
}
/* An arena pointer may be returned. */
// vercheck: accept
SEC("xdp")
__naked int ar_ret(void)
{
	asm volatile (
	"r1 = %[ar_arena] ll;"
	"r0 = 0;"
	"r0 = addr_space_cast(r0, 0, 1);"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}
// vercheck: accept
SEC("syscall")
__naked int ar_ret_syscall(void)
{
	asm volatile (
	"r1 = %[ar_arena] ll;"
	"r0 = 0;"
	"r0 = addr_space_cast(r0, 0, 1);"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}
/* Negation and byte swaps make a number; comparisons decide nothing. */
// vercheck: accept
SEC("xdp")
__naked int ar_neg_cmp(void)
{
	asm volatile (
	"r1 = %[ar_arena] ll;"
	"r0 = 0;"
	"r0 = addr_space_cast(r0, 0, 1);"
	"r0 = -r0;"
	"r0 = be16 r0;"
	"r2 = r0;"
	"r2 = addr_space_cast(r2, 0, 1);"
	"if r2 > r0 goto l0_%=;"
	"if r2 != 5 goto l0_%=;"
	"r0 = 1;"
"l0_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena) : __clobber_all);
}
/* A partial spill of an arena pointer is refused; so is a pointer as a map value to store. */
// vercheck: reject "invalid size of register spill"
SEC("xdp")
__naked int ar_partial_spill(void)
{
	asm volatile (
	"r1 = %[ar_arena] ll;"
	"r0 = 0;"
	"r0 = addr_space_cast(r0, 0, 1);"
	"*(u32 *)(r10 - 8) = r0;"
	"r3 = *(u64 *)(r10 - 8);"
	"r1 = %[ar_arena] ll;"
	"r2 = r10;"
	"r2 += -16;"
	"*(u64 *)(r10 - 16) = r0;"
	"r3 = 0;"
	"call %[bpf_map_update_elem];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena), __imm(bpf_map_update_elem) : __clobber_all);
}
/* A load through an arena pointer on one path and the context on another. */
// vercheck: reject "same insn cannot be used with different pointers"
SEC("xdp")
__naked int ar_ptr_mix(void)
{
	asm volatile (
	"r6 = r1;"
	"r1 = %[ar_arena] ll;"
	"r0 = 0;"
	"r0 = addr_space_cast(r0, 0, 1);"
	"r7 = 0;"
	"call %[bpf_get_prandom_u32];"
	"if r0 > 5 goto l0_%=;"
	"r7 = 0;"
	"r7 = addr_space_cast(r7, 0, 1);"
	"goto l1_%=;"
"l0_%=:"
	"r7 = r6;"
"l1_%=:"
	"r0 = *(u32 *)(r7 + 0);"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ar_arena), __imm(bpf_get_prandom_u32) : __clobber_all);
}
char _license[] SEC("license") = "GPL";
