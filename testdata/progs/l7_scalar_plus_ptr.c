#include "progs.h"

/* "scalar += pointer": a kernel with stablefix.ScalarAddPtrCopy (this
 * machine's 6.18.44-fc-v1045, and 7.x) gives the destination the pointer's
 * whole register state, its reference (ref_obj_id) and frame (frameno)
 * included. 6.18.0 (the "without scalar-add-ptr-copy" verdicts) gives it
 * the pointer's type, id, bounds, offsets and type-specific fields only:
 * the destination keeps the scalar's reference (none) and frame (0 for a
 * scalar made by a mov in any frame). */

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

/* The copy holds the record's reference: releasing through it is
 * accepted. Without the fix it holds none, and the release is refused. */
// vercheck: accept
// vercheck: reject "R1 must be referenced when passed to release function" without scalar-add-ptr-copy
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
 * points into the callee's frame (r10's frameno). Without the fix it
 * points, for the kernel, into the caller's frame (the scalar's frameno,
 * 0): the store sizes the caller's stack, and the callee's slot stays
 * unwritten. Both accept. */
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

/* A pointer to the callee's stack (fp0) stored through such a register
 * lands in the callee's own fp-8, so the fill that follows gives fp0 back,
 * and the load through it at fp+0 is outside the stack. Without the fix
 * the store would land in the caller's frame, which that kernel refuses. */
// vercheck: reject "invalid read from stack R0 off=0 size=8"
// vercheck: reject "cannot spill pointers to stack into stack frame of the caller" without scalar-add-ptr-copy
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

/* The callee's 512-byte store sizes its own stack: with the caller's 56
 * (read by the callee) the two frames need 576 bytes, over the limit.
 * Without the fix the store sizes the caller's stack instead: 512+0 is
 * within the limit. */
// vercheck: reject "combined stack size of 2 calls is 576. Too large"
// vercheck: accept without scalar-add-ptr-copy
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

/* A task acquired and copied as "0 + task" holds the reference: the
 * release through the copy is accepted, and releases r6's task too, so the
 * second release gets a scalar. Without the fix the copy holds no
 * reference, and the first release refuses it. */
// vercheck: reject "arg#0 pointer type STRUCT task_struct must point to scalar, or struct with scalar"
// vercheck: reject "R1 must be referenced or trusted" without scalar-add-ptr-copy
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
