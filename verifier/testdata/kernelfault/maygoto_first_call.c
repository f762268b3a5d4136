/* Programs the 6.18 kernel refuses after verifying them, in jit_subprogs
 * (never load them: "verifier bug: No program to jit at insn N (subprog
 * < 0)", EFAULT, with a kernel warning). In each, a function holding a
 * may_goto begins with a call to, or the address of, a function placed
 * before it: do_misc_fixups patches the loop budget's prologue (two
 * BPF_ST on x86-64) in before that first instruction and leaves its
 * relative offset as it was, so it points two instructions past the
 * earlier function's start, where no function starts. vercheck must say
 * unsupported with ErrKernelFault. Found by vercheck-mutate (seed
 * 20261212, mutant 26049) in the 7.2 selftests' verifier_global_ptr_args
 * trusted_task_arg_nullable, whose global subprog_trusted_task_nullable
 * _extra_layer begins with a call to an earlier global function.
 * Functions are laid out after the main one in the order of their names.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c maygoto_first_call.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"
#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#define __arg_nullable __attribute__((btf_decl_tag("arg:nullable")))

__attribute__((naked, noinline, used)) static int mf_a_leaf(void)
{
	asm volatile("r0 = 0; r0 = 0; r0 = 0; exit;" ::: "r0");
}

__attribute__((naked, noinline, used)) static int mf_a_cb(void)
{
	asm volatile("r0 = 1; r0 = 1; r0 = 1; exit;" ::: "r0");
}

/* A bpf-to-bpf call first. */
__attribute__((naked, noinline, used)) static int mf_z_loop(void)
{
	asm volatile(
		"call mf_a_leaf;"
	"l0_%=:"
		MAY_GOTO(1)
		"goto l0_%=;"
		"exit;"
		::: "r0", "r1", "r2", "r3", "r4", "r5");
}

SEC("socket")
__attribute__((naked)) int mf_static_call(void)
{
	asm volatile(
		"call mf_a_leaf;"
		"call mf_z_loop;"
		"r0 = 0;"
		"exit;"
		::: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

/* A callback's address first (bpf_loop's callback). */
__attribute__((naked, noinline, used)) static int mf_z_loop_cb(void)
{
	asm volatile(
		"r2 = mf_a_cb ll;"
		"r1 = 2;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_loop];"
	"l0_%=:"
		MAY_GOTO(1)
		"goto l0_%=;"
		"r0 = 0;"
		"exit;"
		:
		: [bpf_loop] "i"(BPF_FUNC_loop)
		: "r0", "r1", "r2", "r3", "r4", "r5");
}

SEC("socket")
__attribute__((naked)) int mf_callback_address(void)
{
	asm volatile(
		"r2 = mf_a_cb ll;"
		"r1 = 1;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_loop];"
		"call mf_z_loop_cb;"
		"r0 = 0;"
		"exit;"
		:
		: [bpf_loop] "i"(BPF_FUNC_loop)
		: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

/* The mutant's shape: global functions with a trusted, nullable task
 * argument, the one with the loop calling the other first. */
__noinline int mf_a_global_leaf(struct task_struct *t __arg_trusted __arg_nullable)
{
	int r;

	asm volatile(
		"%[r] = 0;"
		"if %[t] == 0 goto +0;"
		: [r] "=r"(r)
		: [t] "r"(t));
	return r;
}

__noinline int mf_z_global_loop(struct task_struct *t __arg_trusted __arg_nullable)
{
	int r = mf_a_global_leaf(t);

	asm volatile(
	"l0_%=:"
		MAY_GOTO(1)
		"goto l0_%=;"
		::: "memory");
	return r;
}

SEC("socket")
int mf_global_call(void *ctx)
{
	return mf_a_global_leaf(0) + mf_z_global_loop(0);
}
