#include "progs.h"

/* Stack liveness across calls (6.18's liveness.c): the slots of the
 * caller's frame that a static callee writes on every path before reading
 * them are written by the call instruction itself (the callee entry's
 * must_write_acc, propagate_to_outer_instance), so they are dead before the
 * call: a checkpoint there does not keep what they held, and states that
 * differ only in them are pruned. */

static __naked __attribute__((noinline, used)) int l12_sub_write(void)
{
	asm volatile(
		"r2 = 0;"
		"*(u64 *)(r1 + 0) = r2;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int l12_sub_write_one_path(void)
{
	asm volatile(
		"r6 = r1;"
		"call %[bpf_get_prandom_u32];"
		"if r0 > 7 goto 1f;"
		"r2 = 0;"
		"*(u64 *)(r6 + 0) = r2;"
	"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int l12_sub_write_both_paths(void)
{
	asm volatile(
		"r6 = r1;"
		"call %[bpf_get_prandom_u32];"
		"if r0 > 7 goto 1f;"
		"r2 = 0;"
		"*(u64 *)(r6 + 0) = r2;"
		"r0 = 0;"
		"exit;"
	"1:"
		"*(u64 *)(r6 + 0) = r0;"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

static __naked __attribute__((noinline, used)) int l12_sub_outer(void)
{
	asm volatile(
		"call l12_sub_write;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int l12_sub_read_then_write(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 0);"
		"r2 = 0;"
		"*(u64 *)(r1 + 0) = r2;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

static int l12_loop_cb(__u64 idx, void *ctx)
{
	*(__u64 *)ctx = idx;
	return 0;
}

#define L12_BODY(callee)                             \
	asm volatile(                                \
		"r9 = r1;"                           \
		"call %[bpf_get_prandom_u32];"       \
		"r7 = r0;"                           \
		"*(u64 *)(r10 - 8) = r9;"            \
		"if r7 == 3 goto 1f;"                \
		"r0 = 1;"                            \
	"1:"                                         \
		"if r7 > 10 goto 2f;"                \
		"*(u64 *)(r10 - 8) = r7;"            \
		"r0 = 2;"                            \
		"r0 = 3;"                            \
	"2:"                                         \
		"r0 = 4;"                            \
		"r0 = 5;"                            \
		"r1 = r10;"                          \
		"r1 += -8;"                          \
		"call " #callee ";"                  \
		"r0 = *(u64 *)(r10 - 8);"            \
		"r0 = 0;"                            \
		"exit;"                              \
		:                                    \
		: __imm(bpf_get_prandom_u32)         \
		: __clobber_all)

/* fp-8 holds a pointer on one path and a number on the other; the callee
 * overwrites it before anything reads it, so the second path is pruned at
 * the checkpoint before the call. */
// vercheck: accept
SEC("socket")
__naked int l12_callee_kills_slot(void)
{
	L12_BODY(l12_sub_write);
}

/* The callee writes the slot on one of its paths only: the slot stays
 * alive before the call, and the second path is explored. */
// vercheck: accept
SEC("socket")
__naked int l12_callee_maybe_writes(void)
{
	L12_BODY(l12_sub_write_one_path);
}

/* Written on both of the callee's paths: dead before the call. */
// vercheck: accept
SEC("socket")
__naked int l12_callee_writes_both(void)
{
	L12_BODY(l12_sub_write_both_paths);
}

/* Written two calls down: the write reaches the outer call through the
 * middle function's entry. */
// vercheck: accept
SEC("socket")
__naked int l12_callee_writes_nested(void)
{
	L12_BODY(l12_sub_outer);
}

/* Read before written: alive before the call. */
// vercheck: accept
SEC("socket")
__naked int l12_callee_reads_first(void)
{
	L12_BODY(l12_sub_read_then_write);
}

/* A bpf_loop callback that writes the caller's slot through its context:
 * the helper call writes nothing itself (the callback may not run). */
// vercheck: accept
SEC("socket")
int l12_callback_writes(void *ctx)
{
	__u64 v = bpf_get_prandom_u32();

	if (v > 10)
		v = (__u64)ctx;
	bpf_loop(2, l12_loop_cb, &v, 0);
	return v == 0;
}

char _license[] SEC("license") = "GPL";
