#include "progs.h"

/* "scalar += pointer": the kernel's adjust_ptr_min_max_vals gives the
 * destination the pointer's type, id, bounds, offsets and type-specific
 * fields, but not its reference (ref_obj_id) nor, for a stack pointer, its
 * frame (frameno): the destination keeps the scalar's. */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} l7_rb SEC(".maps");

static __naked __attribute__((noinline, used)) int l7_sub_store(void)
{
	asm volatile(
		"r0 = r4;"
		"r0 += -512;"
		"r0 += r10;"
		"r1 = 1;"
		"*(u8 *)(r0 + 0) = r1;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int l7_sub_spill(void)
{
	asm volatile(
		"r0 = r4;"
		"r0 += -8;"
		"r0 += r10;"
		"r2 = r10;"
		"*(u64 *)(r0 + 0) = r2;"
		"r0 = *(u64 *)(r10 - 8);"
		"r0 = *(u64 *)(r0 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int l7_sub_read_store(void)
{
	asm volatile(
		"r3 = *(u64 *)(r1 + 0);"
		"r0 = r4;"
		"r0 -= 512;"
		"r0 += r10;"
		"*(u8 *)(r0 + 0) = 1;"
		"r0 = r3;"
		"exit;"
		::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int l7_sub_zero_fill(void)
{
	asm volatile(
		"r2 = 0;"
		"*(u32 *)(r10 - 4) = r2;"
		"r1 = r10;"
		"r1 = *(u32 *)(r10 - 4);"
		"r1 += -16;"
		"r1 += r10;"
		"r2 = r10;"
		"*(u64 *)(r1 + 0) = r2;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The copy holds no reference: releasing through it is refused. */
// vercheck: reject "R1 must be referenced when passed to release function"
SEC("tc")
__naked int l7_ringbuf_submit_copy(void)
{
	asm volatile(
		"r1 = %[l7_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"r1 += r0;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit];"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(l7_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit)
		: __clobber_all);
}

/* The pointer itself holds it: the usual form is accepted. */
// vercheck: accept
SEC("tc")
__naked int l7_ringbuf_submit_ptr_plus_scalar(void)
{
	asm volatile(
		"r1 = %[l7_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"if r0 == 0 goto l0_%=;"
		"r1 = r0;"
		"r2 = 0;"
		"r1 += r2;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit];"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(l7_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit)
		: __clobber_all);
}

/* In a subprogram, a scalar made in the caller plus the callee's r10
 * points, for the kernel, into the caller's frame (the scalar's frameno,
 * 0): the store sizes the caller's stack, and the callee's slot stays
 * unwritten. */
// vercheck: accept
SEC("tc")
__naked int l7_callee_scalar_plus_fp(void)
{
	asm volatile(
		"r4 = 0;"
		"call l7_sub_store;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* A pointer to the callee's stack stored through such a register would
 * land in the caller's frame, which the kernel refuses. */
// vercheck: reject "cannot spill pointers to stack into stack frame of the caller"
SEC("tc")
__naked int l7_callee_spill_elsewhere(void)
{
	asm volatile(
		"r4 = 0;"
		"call l7_sub_spill;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The caller's stack then counts the callee's 512 bytes: with 56 of its
 * own read by the callee, 512+0 is within the limit where 56+512 is not. */
// vercheck: accept
SEC("tc")
__naked int l7_callee_depth_in_caller(void)
{
	asm volatile(
		"r4 = 0;"
		"r1 = r10;"
		"r1 += -56;"
		"call l7_sub_read_store;"
		"exit;"
		::: __clobber_all);
}

/* A read of zeroed stack (an unaligned store of zero, not a spill) leaves
 * the register's frame as it was: r1 held the callee's frame pointer, so
 * "r1 += r10" after the fill points into the callee's own stack, where a
 * stack pointer may be stored. */
// vercheck: accept
SEC("tc")
__naked int l7_callee_zero_fill_keeps_frame(void)
{
	asm volatile(
		"r4 = 0;"
		"call l7_sub_zero_fill;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* The plain acquire and release (it also makes clang emit both kfuncs,
 * which the assembly below calls). */
// vercheck: accept
SEC("tp_btf/task_newtask")
int l7_task_release(unsigned long long *ctx)
{
	struct task_struct *t = bpf_task_acquire((struct task_struct *)ctx[0]);

	if (t)
		bpf_task_release(t);
	return 0;
}

/* A task acquired and copied as "0 + task" holds no reference either:
 * the kfunc that releases refuses the copy. */
// vercheck: reject "R1 must be referenced or trusted"
SEC("tp_btf/task_newtask")
__naked int l7_task_release_copy(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"call %[bpf_task_acquire];"
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = 0;"
		"r1 += r6;"
		"call %[bpf_task_release];"
		"r1 = r6;"
		"call %[bpf_task_release];"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_task_acquire), __imm(bpf_task_release)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
