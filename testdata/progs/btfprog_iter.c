#include "progs.h"

/* Iterator programs (SEC("iter/<target>")): the context is the target's
 * struct bpf_iter__<target>, a pointer to the bpf_iter_meta and the object
 * pointers, which are NULL on the last call of an iteration. */

char _license[] SEC("license") = "GPL";

struct task_struct {};

extern struct task_struct *bpf_task_acquire(struct task_struct *) __ksym;
extern void bpf_task_release(struct task_struct *) __ksym;

/* Reads the task's first word once the NULL case is out of the way. */
// vercheck: accept
SEC("iter/task")
__naked int btfprog_iter_task_checked(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 8);"
		"if r2 == 0 goto 1f;"
		"r0 = *(u32 *)(r2 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The task may be NULL: dereferencing it unchecked is refused. */
// vercheck: reject "R2 invalid mem access 'trusted_ptr_or_null_'"
SEC("iter/task")
__naked int btfprog_iter_task_unchecked(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 8);"
		"r0 = *(u32 *)(r2 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* An iterator returns 0 (go on) or 1 (stop and run again later). */
// vercheck: reject "At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]"
SEC("iter/task")
__naked int btfprog_iter_ret_out_of_range(void)
{
	asm volatile(
		"r0 = 2;"
		"exit;"
		::: __clobber_all);
}

/* A return value known only to be 0 or 1 is fine. */
// vercheck: accept
SEC("iter/task")
int btfprog_iter_ret_bit(void *ctx)
{
	return bpf_get_prandom_u32() & 1;
}

/* The context is read-only. */
// vercheck: reject "invalid bpf_context access off=8 size=8"
SEC("iter/task")
__naked int btfprog_iter_ctx_write(void)
{
	asm volatile(
		"r2 = 0;"
		"*(u64 *)(r1 + 8) = r2;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The task iterator's context has two slots: meta and task. */
// vercheck: reject "invalid bpf_context access off=16 size=8"
SEC("iter/task")
__naked int btfprog_iter_ctx_past_end(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 16);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* Slot reads must be aligned to their size. */
// vercheck: reject "invalid bpf_context access off=4 size=8"
SEC("iter/task")
__naked int btfprog_iter_ctx_misaligned(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 4);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The meta pointer is never NULL; its seq_file goes to bpf_seq_write. */
// vercheck: accept
SEC("iter/task")
__naked int btfprog_iter_seq_write(void)
{
	asm volatile(
		"r6 = *(u64 *)(r1 + 0);"
		"r1 = *(u64 *)(r6 + 0);"
		"r2 = *(u64 *)(r6 + 16);"
		"*(u64 *)(r10 - 8) = r2;"
		"r2 = r10;"
		"r2 += -8;"
		"r3 = 8;"
		"call %[bpf_seq_write];"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_seq_write)
		: __clobber_all);
}

/* The task iterator's task is trusted: it can be acquired. */
// vercheck: accept
SEC("iter/task")
int btfprog_iter_task_acquire(struct { void *meta; struct task_struct *task; } *ctx)
{
	struct task_struct *t;

	if (!ctx->task)
		return 0;
	t = bpf_task_acquire(ctx->task);
	if (t)
		bpf_task_release(t);
	return 0;
}

/* The task_file iterator's task is not trusted. */
// vercheck: reject "R1 must be a rcu pointer"
SEC("iter/task_file")
int btfprog_iter_task_file_acquire(struct { void *meta; struct task_struct *task; } *ctx)
{
	struct task_struct *t;

	if (!ctx->task)
		return 0;
	t = bpf_task_acquire(ctx->task);
	if (t)
		bpf_task_release(t);
	return 0;
}

/* task_file: the fd is a number, the file may be NULL. */
// vercheck: accept
SEC("iter/task_file")
__naked int btfprog_iter_task_file_checked(void)
{
	asm volatile(
		"r0 = *(u32 *)(r1 + 16);"
		"r3 = *(u64 *)(r1 + 24);"
		"if r3 == 0 goto 1f;"
		"r0 = *(u32 *)(r3 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "R3 invalid mem access 'ptr_or_null_'"
SEC("iter/task_file")
__naked int btfprog_iter_task_file_unchecked(void)
{
	asm volatile(
		"r3 = *(u64 *)(r1 + 24);"
		"r0 = *(u32 *)(r3 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* bpf_map_elem: the map is always there, the key may be NULL. */
// vercheck: accept
SEC("iter/bpf_map_elem")
__naked int btfprog_iter_map_elem_map(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 8);"
		"r0 = *(u32 *)(r2 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "R3 invalid mem access 'rdonly_buf_or_null'"
SEC("iter/bpf_map_elem")
__naked int btfprog_iter_map_elem_key_unchecked(void)
{
	asm volatile(
		"r3 = *(u64 *)(r1 + 16);"
		"r0 = *(u32 *)(r3 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* bpf_prog and tcp iterators: both objects may be NULL. */
// vercheck: reject "R2 invalid mem access 'ptr_or_null_'"
SEC("iter/bpf_prog")
__naked int btfprog_iter_prog_unchecked(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 8);"
		"r0 = *(u32 *)(r2 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: accept
SEC("iter/tcp")
__naked int btfprog_iter_tcp_checked(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 8);"
		"if r2 == 0 goto 1f;"
		"r0 = *(u16 *)(r2 + 12);"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}
