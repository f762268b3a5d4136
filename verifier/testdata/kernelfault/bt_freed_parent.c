/* A program the 6.18 kernel's verifier oopses on (never load it): a
 * bpf_loop callback with a may_goto loop that writes its caller's stack
 * through the context pointer. Each visit of the may_goto loop's head
 * keeps a loop back-edge state for later precision propagation
 * (propagate_backedges), a copy of the current state whose ancestors
 * include the checkpoints at the bpf_loop call of earlier callback
 * rounds. Those checkpoints are not in the loop's SCC, so once evicted
 * (miss > 3*hit + 3) with their paths done they are freed at once, and
 * nothing counts the back-edges' references to them: when the loop is
 * left, propagate_backedges walks up into a freed checkpoint, whose
 * frames free_verifier_state set to NULL, and __mark_chain_precision
 * dereferences one (a NULL pointer oops at func->allocated_stack; the
 * kernel's level-2 log, captured through a shared mapping, ends in that
 * walk). Found by vercheck-mutate's resource operators (seed 8101,
 * mutant 56478). vercheck must say unsupported with ErrKernelFault.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c bt_freed_parent.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __attribute__((naked, noinline, used)) int bt_freed_parent_cb(void)
{
	asm volatile(
		"r1 = *(u64 *)(r2 + 0);"
		"r1 += 1;"
		"*(u64 *)(r2 + 0) = r1;"
		"r3 = r10;"
		"may_goto +1;"
		"goto -4;"
		"r3 += -64;"
		"r1 &= 63;"
		"r3 += r1;"
		"r1 = 0;"
		"*(u8 *)(r3 + 0) = r1;"
		"r0 = 0;"
		"exit;"
		::: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

SEC("socket")
__attribute__((naked)) int bt_freed_parent(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"r1 = 1000;"
		"r2 = bt_freed_parent_cb ll;"
		"r3 = r10;"
		"r3 += -8;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"*(u64 *)(r10 - 8) = 0;"
		"r0 = 0;"
		"exit;"
		:
		: [bpf_loop] "i"(BPF_FUNC_loop)
		: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

char _license[] SEC("license") = "GPL";
