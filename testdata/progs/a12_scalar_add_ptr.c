#include "progs.h"

/* "scalar op= pointer" (adjust_ptr_min_max_vals with the pointer as the
 * source): a kernel with stablefix.ScalarAddPtrCopy (this machine's
 * 6.18.44-fc-v1045, and 7.x: "*dst_reg = *ptr_reg") gives the destination
 * the pointer's whole register state, its reference (ref_obj_id) and frame
 * included, and does so before it returns early for untrusted memory,
 * whose offset it does not track. 6.18.0 (the "without" verdicts) copies
 * the type, id, bounds, offsets and type-specific fields only, and for
 * untrusted memory nothing: the destination stays the scalar it was.
 * l7_scalar_plus_ptr.c has the frame cases. */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} a12_rb SEC(".maps");

extern void *bpf_rdonly_cast(const void *obj__ign, __u32 btf_id__k) __ksym;

/* The copy holds the record's reference, so the submit through the
 * record invalidates it. Without the fix it holds none, survives the
 * submit, and writes into a record the consumer may already read. */
// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without scalar-add-ptr-copy
SEC("tc")
__naked int a12_ringbuf_copy_after_submit(void)
{
	asm volatile(
		"r1 = %[a12_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"if r0 == 0 goto l0_%=;"
		"r6 = 0;"
		"r6 += r0;"
		"r1 = r0;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit];"
		"r1 = 0;"
		"*(u8 *)(r6 + 0) = r1;"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(a12_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit)
		: __clobber_all);
}

/* Submitted through the copy, the record is gone from r6 too: the second
 * submit gets a scalar. Without the fix the copy cannot submit. */
// vercheck: reject "R1 type=scalar expected=ringbuf_mem"
// vercheck: reject "R1 must be referenced when passed to release function" without scalar-add-ptr-copy
SEC("tc")
__naked int a12_ringbuf_copy_double_submit(void)
{
	asm volatile(
		"r1 = %[a12_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = 0;"
		"r1 += r0;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit];"
		"r1 = r6;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit];"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(a12_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit)
		: __clobber_all);
}

/* A slice of a ring buffer dynptr shares the dynptr's reference: a copy of
 * it dies with the discard. Without the fix the copy outlives it. */
// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without scalar-add-ptr-copy
SEC("tc")
__naked int a12_dynptr_slice_copy_after_discard(void)
{
	asm volatile(
		"r1 = %[a12_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = r10;"
		"r4 += -16;"
		"call %[bpf_ringbuf_reserve_dynptr];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 8;"
		"call %[bpf_dynptr_data];"
		"if r0 == 0 goto l0_%=;"
		"r6 = 0;"
		"r6 += r0;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = *(u64 *)(r6 + 0);"
		"r0 = 0;"
		"exit;"
	"l0_%=:"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(a12_rb), __imm(bpf_ringbuf_reserve_dynptr), __imm(bpf_dynptr_data),
		  __imm(bpf_ringbuf_discard_dynptr)
		: __clobber_all);
}

/* "scalar += untrusted memory" is that memory: a probe read through it is
 * accepted. Without the fix the scalar stays a scalar. */
// vercheck: accept
// vercheck: reject "R1 invalid mem access 'scalar'" without scalar-add-ptr-copy
SEC("socket")
__naked int a12_untrusted_add(void)
{
	asm volatile(
		"r1 = r10;"
		"r2 = 0;"
		"call %[bpf_rdonly_cast];"
		"r1 = 7;"
		"r1 += r0;"
		"r0 = *(u8 *)(r1 + 5);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_rdonly_cast)
		: __clobber_all);
}

/* The copy comes before the operator is looked at: "scalar -= untrusted
 * memory" is that memory too. */
// vercheck: accept
// vercheck: reject "R1 invalid mem access 'scalar'" without scalar-add-ptr-copy
SEC("socket")
__naked int a12_untrusted_sub(void)
{
	asm volatile(
		"r1 = r10;"
		"r2 = 0;"
		"call %[bpf_rdonly_cast];"
		"r1 = 7;"
		"r1 -= r0;"
		"r0 = *(u8 *)(r1 + 5);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_rdonly_cast)
		: __clobber_all);
}

/* ... and so is "scalar *= untrusted memory". */
// vercheck: accept
// vercheck: reject "R1 invalid mem access 'scalar'" without scalar-add-ptr-copy
SEC("socket")
__naked int a12_untrusted_mul(void)
{
	asm volatile(
		"r1 = r10;"
		"r2 = 0;"
		"call %[bpf_rdonly_cast];"
		"r1 = 7;"
		"r1 *= r0;"
		"r0 = *(u8 *)(r1 + 5);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_rdonly_cast)
		: __clobber_all);
}

/* A 32-bit subtraction of a pointer gives an unknown scalar before any
 * copy, with the fix or without. */
// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("socket")
__naked int a12_untrusted_sub32(void)
{
	asm volatile(
		"r1 = r10;"
		"r2 = 0;"
		"call %[bpf_rdonly_cast];"
		"r1 = 7;"
		"w1 -= w0;"
		"r0 = *(u8 *)(r1 + 5);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_rdonly_cast)
		: __clobber_all);
}

/* Other operators with a tracked pointer are refused, with the fix or
 * without. */
// vercheck: reject "R1 tried to subtract pointer from scalar"
SEC("socket")
__naked int a12_scalar_sub_fp(void)
{
	asm volatile(
		"r2 = r10;"
		"r1 = 0;"
		"r1 -= r2;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* Gives the object the kfunc's BTF. */
// vercheck: accept
SEC("socket")
int a12_untrusted_user(void *ctx)
{
	return bpf_rdonly_cast(ctx, 0) != 0;
}

/* A packet pointer's checked range goes with it, with the fix or without:
 * 0 + data and 2 + data read within the 8 bytes checked. */
// vercheck: accept
SEC("tc")
__naked int a12_packet_copy(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + %[data]);"
		"r3 = *(u32 *)(r1 + %[data_end]);"
		"r4 = r2;"
		"r4 += 8;"
		"if r4 > r3 goto l0_%=;"
		"r5 = 0;"
		"r5 += r2;"
		"r0 = *(u32 *)(r5 + 4);"
		"r5 = 2;"
		"r5 += r2;"
		"r0 = *(u32 *)(r5 + 2);"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* A task released through its copy: accepted, as the copy holds the
 * reference. Without the fix it holds none. */
// vercheck: accept
// vercheck: reject "R1 must be referenced or trusted" without scalar-add-ptr-copy
SEC("tp_btf/task_newtask")
__naked int a12_task_release_copy(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"call %[bpf_task_acquire];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"r1 += r0;"
		"call %[bpf_task_release];"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_task_acquire), __imm(bpf_task_release)
		: __clobber_all);
}

/* Makes clang emit both kfuncs, which the assembly above calls. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int a12_task_release(unsigned long long *ctx)
{
	struct task_struct *t = bpf_task_acquire((struct task_struct *)ctx[0]);

	if (t)
		bpf_task_release(t);
	return 0;
}

char _license[] SEC("license") = "GPL";
