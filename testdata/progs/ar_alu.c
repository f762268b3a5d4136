#include "progs.h"

/* More ALU and jumps with arena pointers: comparisons decide nothing,
 * any ALU operation with an arena operand keeps an arena pointer (the
 * subtraction of two included), while the moves and swaps that check_alu_op
 * handles apart (32-bit moves, sign-extending moves, byte swaps) make a
 * number. */

#define AR_MAP_TYPE_ARENA 33
#define AR_F_MMAPABLE 1024

struct {
	__uint(type, AR_MAP_TYPE_ARENA);
	__uint(map_flags, AR_F_MMAPABLE);
	__uint(max_entries, 1);
} al_arena SEC(".maps");

/* r1 an arena pointer of unknown value, r2 = r1 + 8, then ops. */
#define ARENA_OPS(ops)								\
	asm volatile (								\
	"r1 = %[al_arena] ll;"							\
	"call %[bpf_get_prandom_u32];"						\
	"r1 = r0;"								\
	"r1 = addr_space_cast(r1, 0, 1);"					\
	"r2 = r1;"								\
	"r2 += 8;"								\
	ops									\
	"r0 = 0;"								\
	"exit;"									\
	:: __imm_addr(al_arena), __imm(bpf_get_prandom_u32),			\
	   __imm(bpf_map_lookup_elem) : __clobber_all)

// vercheck: accept
SEC("xdp")
__naked int al_jmp32_zero(void) { ARENA_OPS("if w1 == 0 goto +1; r0 = *(u32 *)(r1 + 0);"); }
// vercheck: accept
SEC("xdp")
__naked int al_jmp32_const(void) { ARENA_OPS("if w1 > 5 goto +1; r0 = *(u32 *)(r1 + 0);"); }
// vercheck: accept
SEC("xdp")
__naked int al_cmp_arenas(void) { ARENA_OPS("if r1 > r2 goto +1; r0 = *(u32 *)(r1 + 0);"); }
// vercheck: accept
SEC("xdp")
__naked int al_cmp_stack(void) { ARENA_OPS("r3 = r10; if r1 > r3 goto +1; r0 = *(u32 *)(r1 + 0);"); }
// vercheck: accept
SEC("xdp")
__naked int al_store_imm(void) { ARENA_OPS("*(u64 *)(r1 + 0) = 5; *(u8 *)(r1 - 1) = 5;"); }
// vercheck: reject "R2 type=arena expected=fp"
SEC("xdp")
__naked int al_lookup_key(void) { ARENA_OPS("r1 = %[al_arena] ll; call %[bpf_map_lookup_elem];"); }
// vercheck: accept
SEC("xdp")
__naked int al_sub_arenas(void) { ARENA_OPS("r2 -= r1; r0 = *(u32 *)(r2 + 0);"); }
// vercheck: accept
SEC("xdp")
__naked int al_div(void) { ARENA_OPS("r2 /= 3; r0 = *(u32 *)(r2 + 0);"); }
// vercheck: reject "R2 invalid mem access 'scalar'"
SEC("xdp")
__naked int al_byte_swap(void) { ARENA_OPS("r2 = be32 r2; r0 = *(u32 *)(r2 + 0);"); }
// vercheck: reject "R2 invalid mem access 'scalar'"
SEC("xdp")
__naked int al_mov32(void) { ARENA_OPS("w2 = w1; r0 = *(u32 *)(r2 + 0);"); }
// vercheck: reject "R2 invalid mem access 'scalar'"
SEC("xdp")
__naked int al_movsx(void) { ARENA_OPS("r2 = (s32)r1; r0 = *(u32 *)(r2 + 0);"); }

char _license[] SEC("license") = "GPL";
