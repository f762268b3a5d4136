/* A program the 6.18 kernel's verifier WARNs on (never load it): a
 * bpf_throw inside a may_goto loop reached before the loop has any
 * checkpoint. The path ends inside the SCC with no visit for its call
 * chain, and maybe_exit_scc reports "verifier bug: scc exit: no visit
 * info for call chain (1)" with a kernel warning, which taints the
 * kernel. vercheck must say unsupported with ErrKernelFault.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c scc_throw.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern void bpf_throw(__u64 cookie) __ksym;

/* A plain call, never linked into the program, gives the extern its BTF. */
__attribute__((used, noinline)) static void scc_throw_btf(void)
{
	bpf_throw(0);
}

SEC("tc")
__attribute__((naked)) int scc_throw_in_loop(void)
{
	asm volatile(
		"r1 = 0;"
		"call %[bpf_throw];"
		"may_goto +1;"
		"goto -3;"
		"r0 = 0;"
		"exit;"
		:
		: [bpf_throw] "i"(bpf_throw)
		: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

char _license[] SEC("license") = "GPL";
