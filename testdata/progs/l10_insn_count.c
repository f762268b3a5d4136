#include "progs.h"

/* A call, on a path never taken, to a kfunc not registered for the
 * program type (the generic task kfuncs are not for raw tracepoints): its
 * prototype is not the program's to use, so the kernel's liveness
 * (compute_live_registers) takes it to read r1-r5. r3 is then live at the
 * join "1: r0 = 0", and the state stored there by the first path (r3 =
 * -1) does not cover the second (r3 never written): no pruning, 12
 * instructions, not 11 (found by vercheck-mutate, seed 20261904, mutant
 * 9526.3). l10_user gives the object the kfuncs' declarations. */

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

// vercheck: accept
SEC("raw_tp/sys_enter")
__naked int l10_dead_kfunc_liveness(void)
{
	asm volatile(
		"w1 = 1;"
		"r9 = *(u8 *)(r10 - 8);"
		"if w9 != 0 goto 1f;"
		"goto +0;"
		"r3 = *(u8 *)(r10 - 512);"
		"r3 = -1;"
		"1: r0 = 0;"
		"if r0 == 0 goto 2f;"
		"call %[bpf_task_from_pid];"
		"2: exit;"
		:
		: __imm(bpf_task_from_pid)
		: __clobber_all);
}

// vercheck: accept
SEC("tp_btf/task_newtask")
int l10_user(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);

	if (t)
		bpf_task_release(t);
	return 0;
}

char _license[] SEC("license") = "GPL";
