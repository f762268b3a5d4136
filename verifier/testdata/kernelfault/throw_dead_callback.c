/* A program the 6.18 kernel refuses after verifying it, in jit_subprogs
 * (never load it: "verifier bug: No program to jit at insn 7 (subprog <
 * 0)", EFAULT, with a kernel warning). It takes the address of a callback
 * no path calls, then throws: opt_remove_dead_code removes the callback,
 * leaving the program one function with the address pointing past its
 * end, and do_misc_fixups appends the default exception callback as a
 * second function, whose patch moves the address two instructions past
 * the new function's start. Without the throw the program loads. vercheck
 * must say unsupported with ErrKernelFault (found by vercheck-mutate: a
 * bpf_loop call replaced by bpf_throw).
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c throw_dead_callback.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern void bpf_throw(__u64 cookie) __ksym;

__attribute__((naked, noinline, used)) static int tdc_unused_cb(void)
{
	asm volatile("r0 = 0; exit;" ::: "r0");
}

SEC("tc")
__attribute__((naked)) int tdc_throw_dead_cb(void)
{
	asm volatile(
	"r1 = 4;"
	"r2 = tdc_unused_cb ll;"
	"call %[bpf_throw];"
	"exit;"
	:: [bpf_throw] "i"(bpf_throw) : "r0", "r1", "r2", "r3", "r4", "r5");
}

/* A C use of the kfunc, for its BTF; no program calls it. */
__attribute__((noinline, used)) static void tdc_btf_use(__u64 cookie)
{
	bpf_throw(cookie);
}

char _license[] SEC("license") = "GPL";
