#include "progs.h"

/*
 * The static call-graph walk that follows verification: the frames' stacks
 * (each rounded up to 16 bytes for the JIT) must add up to at most 512
 * bytes along every call chain, and a chain may hold at most 8 frames, even
 * one that recursion builds only on paths the simulation never took.
 */

static __naked __attribute__((noinline, used)) void leaf_uses_256(void)
{
	asm volatile (
	"r2 = 7;"
	"*(u64 *)(r10 - 256) = r2;"
	"r0 = *(u64 *)(r10 - 256);"
	"exit;"
	::: __clobber_all);
}

static __naked __attribute__((noinline, used)) void middle_uses_168(void)
{
	asm volatile (
	"r2 = 1;"
	"*(u64 *)(r10 - 168) = r2;"
	"call leaf_uses_256;"
	"exit;"
	::: __clobber_all);
}

/* 96 + 168 (rounded to 176) + 256 = 528 bytes: one chain too deep. */
// vercheck: reject "combined stack size of 3 calls is 528. Too large"
SEC("socket")
__naked int chain_stack_over_budget(void)
{
	asm volatile (
	"r2 = 0;"
	"*(u64 *)(r10 - 96) = r2;"
	"call middle_uses_168;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* 80 + 176 + 256 = 512 bytes: exactly the budget. */
// vercheck: accept
SEC("socket")
__naked int chain_stack_at_budget(void)
{
	asm volatile (
	"r2 = 0;"
	"*(u64 *)(r10 - 80) = r2;"
	"call middle_uses_168;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* Counts r1 down; on every path it ends long before 8 frames. */
static __naked __attribute__((noinline, used)) void countdown(void)
{
	asm volatile (
	"if r1 == 0 goto 1f;"
	"r1 -= 1;"
	"call countdown;"
	"1: r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: reject "the call stack of 8 frames is too deep !"
SEC("socket")
__naked int self_recursion_two_deep(void)
{
	asm volatile (
	"r1 = 2;"
	"call countdown;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
