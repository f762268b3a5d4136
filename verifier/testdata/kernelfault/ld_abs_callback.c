/* A program the 6.18 kernel's verifier WARNs on (never load it): a legacy
 * packet load in a bpf_loop callback whose failure returns 0 from the
 * callback (check_ld_abs explores that return as prepare_func_exit). The
 * callback's return value is made precise with the walk starting before
 * the load; nothing in the callback sets r0 first, so the walk reaches the
 * callback's entry still wanting r0, and backtrack_insn reports "verifier
 * bug: callback unexpected regs 1" with a kernel warning (EFAULT).
 * testdata/progs/s39_ld_abs_callback.c has the callbacks that set r0 first,
 * which the kernel accepts. vercheck must say unsupported with
 * ErrKernelFault.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c ld_abs_callback.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

__attribute__((naked, noinline, used)) static int ld_abs_cb(void)
{
	asm volatile ("r6 = *(u64 *)(r2 + 0);"
		      ".8byte 0x0000000000000020;" /* r0 = *(u32 *)skb[0] */
		      "r0 = 0;"
		      "exit;" ::: "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory");
}

SEC("socket")
__attribute__((naked)) int ld_abs_callback(void)
{
	asm volatile ("*(u64 *)(r10 - 8) = r1;"
		      "r3 = r10;"
		      "r3 += -8;"
		      "r1 = 1;"
		      "r2 = ld_abs_cb ll;"
		      "r4 = 0;"
		      "call %[bpf_loop];"
		      "r0 = 0;"
		      "exit;" :: [bpf_loop] "i"(BPF_FUNC_loop)
		      : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory");
}
