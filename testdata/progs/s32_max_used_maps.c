#include "progs.h"

/* A program may name at most 64 distinct maps (MAX_USED_MAPS): the 65th
 * refuses the load while the ld_imm64s are resolved, before any
 * instruction is verified ("The total number of maps per program has
 * reached the limit of 64", E2BIG). Every ld_imm64 counts, reached or not,
 * global data included; a map named again is not counted again. Found by
 * probing map rules by hand (session 32): vercheck accepted. */
char _license[] SEC("license") = "GPL";

#define S32_MAP(i)							\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, 1);					\
		__uint(key_size, 4);					\
		__uint(value_size, 4);					\
	} s32_m##i SEC(".maps");
#define S32_LOAD(i) "r1 = %[s32_m" #i "] ll;"
#define S32_IMM(i) __imm_addr(s32_m##i),
#define S32_X8(F, p) F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7)
#define S32_X64(F) S32_X8(F, 1) S32_X8(F, 2) S32_X8(F, 3) S32_X8(F, 4) \
	S32_X8(F, 5) S32_X8(F, 6) S32_X8(F, 7) S32_X8(F, 8)

S32_X64(S32_MAP)
S32_MAP(99)

int s32_global = 1;

/* 65 maps. */
// vercheck: reject "The total number of maps per program has reached the limit of 64"
SEC("socket")
__naked int s32_maps_65(void)
{
	asm volatile (S32_X64(S32_LOAD) S32_LOAD(99) "r0 = 0; exit;"
		      :: S32_X64(S32_IMM) __imm_addr(s32_m99) : __clobber_all);
}

/* 64 maps, each named twice: accepted. */
// vercheck: accept
SEC("socket")
__naked int s32_maps_64_twice(void)
{
	asm volatile (S32_X64(S32_LOAD) S32_X64(S32_LOAD) "r0 = 0; exit;"
		      :: S32_X64(S32_IMM) __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* 64 maps and the .data section's map. */
// vercheck: reject "The total number of maps per program has reached the limit of 64"
SEC("socket")
__naked int s32_maps_64_and_data(void)
{
	asm volatile (S32_X64(S32_LOAD) "r1 = %[g] ll; r0 = *(u32 *)(r1 + 0); r0 = 0; exit;"
		      :: S32_X64(S32_IMM) [g] "i"(&s32_global) : __clobber_all);
}

/* The 65th only on a path never taken. */
// vercheck: reject "The total number of maps per program has reached the limit of 64"
SEC("socket")
__naked int s32_maps_65th_dead(void)
{
	asm volatile (S32_X64(S32_LOAD) "r0 = 0; if r0 == 0 goto 1f;" S32_LOAD(99) "1: r0 = 0; exit;"
		      :: S32_X64(S32_IMM) __imm_addr(s32_m99) : __clobber_all);
}
