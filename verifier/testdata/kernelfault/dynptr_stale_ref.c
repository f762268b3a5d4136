/* Programs the 6.18 kernel's verifier reports a bug on (never load them:
 * "verifier bug: misconfigured ref_obj_id", a kernel warning, then "func
 * bpf_ringbuf_submit_dynptr#199 reference has not been acquired before"
 * and EFAULT). A slice of a ringbuf dynptr (bpf_dynptr_data, which
 * carries the dynptr's ref_obj_id) is spilled, then overwritten by plain
 * data: check_stack_write_fixed_off sets only the spilled register's
 * type to NOT_INIT, and the slot keeps the ref_obj_id. Releasing the
 * dynptr, unmark_stack_slots_dynptr looks for clones in every slot with
 * that id and finds one that is no dynptr. vercheck must say unsupported
 * with ErrKernelFault. Found by vercheck-mutate (seed 20261212, mutant
 * 28570) in the selftests' dynptr_fail clone_invalidate5, where an
 * atomic exchange over the spilled slice wrote the plain data.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c dynptr_stale_ref.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} ds_rb SEC(".maps");

extern int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr *clone__uninit) __ksym;

/* The slice half overwritten by a scalar, then the dynptr submitted. */
SEC("socket")
__attribute__((naked)) int ds_submit_after_narrow_write(void)
{
	asm volatile(
		"r1 = %[ds_rb] ll;"
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
		"*(u64 *)(r10 - 24) = r0;"
		"call %[bpf_get_prandom_u32];"
		"*(u32 *)(r10 - 20) = r0;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: [ds_rb] "i"(&ds_rb), [bpf_ringbuf_reserve_dynptr] "i"(BPF_FUNC_ringbuf_reserve_dynptr),
		  [bpf_dynptr_data] "i"(BPF_FUNC_dynptr_data), [bpf_get_prandom_u32] "i"(BPF_FUNC_get_prandom_u32),
		  [bpf_ringbuf_submit_dynptr] "i"(BPF_FUNC_ringbuf_submit_dynptr)
		: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

/* The mutant's shape: the spilled slice exchanged for a scalar by an
 * atomic, then a clone of the dynptr discarded. */
SEC("socket")
__attribute__((naked)) int ds_discard_clone_after_xchg(void)
{
	asm volatile(
		"r1 = %[ds_rb] ll;"
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
		"*(u64 *)(r10 - 40) = r0;"
		"r0 = 0;"
		"r0 = xchg_64(r10 - 40, r0);"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = r10;"
		"r2 += -32;"
		"call %[bpf_dynptr_clone];"
		"r1 = r10;"
		"r1 += -32;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: [ds_rb] "i"(&ds_rb), [bpf_ringbuf_reserve_dynptr] "i"(BPF_FUNC_ringbuf_reserve_dynptr),
		  [bpf_dynptr_data] "i"(BPF_FUNC_dynptr_data), [bpf_dynptr_clone] "i"(bpf_dynptr_clone),
		  [bpf_ringbuf_discard_dynptr] "i"(BPF_FUNC_ringbuf_discard_dynptr)
		: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

/* Not a program: makes clang emit the kfunc's BTF, which the assembly
 * above calls. */
__attribute__((noinline)) int ds_emit_clone(struct bpf_dynptr *a, struct bpf_dynptr *b)
{
	return bpf_dynptr_clone(a, b);
}
