#include "progs.h"

/* Register liveness (compute_live_registers) takes a call's argument
 * count from get_call_summary, which for a kfunc asks fetch_kfunc_meta:
 * a kfunc the program type may not call fails it, and the call then
 * counts as reading all of r1-r5. Here such a call is dead (r0 == 0 is
 * decided), yet it keeps r3 live back to the join at "1:", where one path
 * has r3 = -1 and the other never wrote it: no pruning, as in the kernel.
 * vercheck took the kfunc's own parameter count (r1 only) and pruned, one
 * instruction fewer (found by the fuzzer as an insn_processed difference,
 * 11 against 12). Raw tracepoints have no kfunc hook of their own. */

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* In C, which gives the object the BTF of the two kfuncs (a TC program
 * may call them). */
// vercheck: accept
SEC("tc")
int l9_kfunc_btf(struct __sk_buff *skb)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (t)
		bpf_task_release(t);
	return 0;
}

// vercheck: accept
SEC("raw_tp/sys_enter")
__naked int l9_dead_kfunc_keeps_args_live(void)
{
	asm volatile(
		"w1 = 1;"
		"call %[bpf_get_prandom_u32];"
		"r9 = r0;"
		"w1 = 1;"
		"if w9 != 0 goto 1f;"
		"r3 = -1;"
		"1: r0 = 0;"
		"if r0 == 0 goto 2f;"
		"call %[bpf_task_release];"
		"2: exit;"
		:
		: __imm(bpf_get_prandom_u32), __imm(bpf_task_release)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
