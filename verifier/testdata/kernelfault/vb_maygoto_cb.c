/* A program the 6.18 kernel's verifier WARNs on (never load it): a
 * may_goto (with offset 0) in a bpf_loop callback, on no cycle of the
 * control-flow graph. The callback is verified once per iteration, and the
 * may_goto of a later iteration meets its checkpoint from an earlier one
 * with another may_goto depth: is_state_visited takes that for a loop and
 * records a back-edge, but the instruction belongs to no SCC, and
 * add_scc_backedge reports "verifier bug: add backedge: no SCC in
 * verification path, insn_idx 32" with a kernel warning (EFAULT). A
 * mutant of testdata/progs/bploop_trace.c's bl_stack_read (a spill
 * repeated, the may_goto inserted) found by the mutation fuzzer (seed
 * 20261902, mutant 31150). vercheck must say unsupported with
 * ErrKernelFault.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v4
 *   -I/usr/include/x86_64-linux-gnu -c vb_maygoto_cb.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
static __attribute__((naked, noinline, used)) int vb_maygoto_cb_fn(void)
{
	asm volatile(
		"r3 = *(u32 *)(r2 +32);"
		"r4 = *(u64 *)(r2 +0);"
		"if r4 <= r1 goto l28_%=;"
		"w4 = 0;"
		"*(u32 *)(r2 +32) = r4;"
		"l28_%=: r4 = *(u64 *)(r2 +8);"
		"if r4 <= r1 goto l32_%=;"
		"w4 = 1;"
		"*(u32 *)(r2 +32) = r4;"
		"l32_%=: may_goto l33_%=;"
		"l33_%=: r4 = *(u64 *)(r2 +16);"
		"if r4 <= r1 goto l37_%=;"
		"w4 = 2;"
		"*(u32 *)(r2 +32) = r4;"
		"l37_%=: r4 = *(u64 *)(r2 +24);"
		"if r4 <= r1 goto l41_%=;"
		"w4 = 3;"
		"*(u32 *)(r2 +32) = r4;"
		"l41_%=: w0 = 1;"
		"if w3 > 0x3 goto l50_%=;"
		"r3 <<= 3;"
		"r2 += r3;"
		"r3 = *(u64 *)(r2 +0);"
		"r3 += r1;"
		"*(u64 *)(r2 +0) = r3;"
		"if r3 > 0x64 goto l50_%=;"
		"w0 = 0;"
		"l50_%=: exit;"
		::: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}
SEC("tc")
__attribute__((naked)) int vb_maygoto_cb(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 -8) = r1;"
		"*(u64 *)(r10 -16) = r1;"
		"*(u64 *)(r10 -24) = r1;"
		"*(u64 *)(r10 -32) = r1;"
		"call %[bpf_get_prandom_u32];"
		"*(u64 *)(r10 -48) = r0;"
		"call %[bpf_get_prandom_u32];"
		"r0 = *(u64 *)(r10 -48);"
		"w1 = w0;"
		"*(u64 *)(r10 -40) = r1;"
		"call %[bpf_get_prandom_u32];"
		"w1 = w0;"
		"*(u64 *)(r10 -16) = r1;"
		"r3 = r10;"
		"r3 += -40;"
		"w1 = 32;"
		"r2 = vb_maygoto_cb_fn ll;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"r0 = *(u32 *)(r10 -8);"
		"exit;"
		:
		: [bpf_get_prandom_u32] "i"(BPF_FUNC_get_prandom_u32), [bpf_loop] "i"(BPF_FUNC_loop)
		: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}
char _license[] SEC("license") = "GPL";
