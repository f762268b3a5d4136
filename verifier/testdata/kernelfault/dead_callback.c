/* Programs the 6.18 kernel refuses after verifying them, in jit_subprogs
 * (never load them: "verifier bug: No program to jit at insn N (subprog
 * < 0)", EFAULT, with a kernel warning). Each takes the address of a
 * callback no path calls; opt_remove_dead_code removes the callback's
 * code and leaves the address pointing into or past what follows it,
 * where no function starts. vercheck must say unsupported with
 * ErrKernelFault (found by vercheck-mutate's follow-ups past the first
 * error: a bpf_for_each_map_elem call replaced by r0 = 0).
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c dead_callback.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} dc_arr SEC(".maps");

__attribute__((naked, noinline, used)) static int dc_dead(void)
{
	asm volatile("r0 = 1; exit;" ::: "r0");
}

__attribute__((naked, noinline, used)) static int dc_live(void)
{
	asm volatile("r0 = 0; r0 = 0; r0 = 0; exit;" ::: "r0");
}

/* The callback's removal joins the dead tail of the main function: the
 * address keeps its index, two instructions into dc_live. */
SEC("socket")
__attribute__((naked)) int dc_dead_tail_joined(void)
{
	asm volatile(
		"r6 = dc_dead ll;"
		"r1 = %[dc_arr] ll;"
		"r2 = dc_live ll;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_for_each_map_elem];"
		"r0 = 0;"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r0 = 2;"
		"exit;"
		:
		: [dc_arr] "i"(&dc_arr), [bpf_for_each_map_elem] "i"(BPF_FUNC_for_each_map_elem)
		: "r0", "r1", "r2", "r3", "r4", "r5", "r6", "memory");
}

/* The callback's call is on a branch no path takes and the callback is
 * the last function: the address points past the end. */
SEC("socket")
__attribute__((naked)) int dc_call_never_taken(void)
{
	asm volatile(
		"r1 = %[dc_arr] ll;"
		"r2 = dc_live ll;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_for_each_map_elem];"
		"r1 = 1;"
		"r2 = dc_last ll;"
		"r3 = 0;"
		"r4 = 0;"
		"r0 = 0;"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: call %[bpf_loop];"
		"r0 = 0;"
		"exit;"
		:
		: [dc_arr] "i"(&dc_arr), [bpf_for_each_map_elem] "i"(BPF_FUNC_for_each_map_elem),
		  [bpf_loop] "i"(BPF_FUNC_loop)
		: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
}

__attribute__((naked, noinline, used)) static int dc_last(void)
{
	asm volatile("r0 = 1; exit;" ::: "r0");
}

char _license[] SEC("license") = "GPL";
