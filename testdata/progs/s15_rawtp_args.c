#include "progs.h"

/* tp_btf arguments this build's raw_tp_null_args lists and upstream's does
 * not (stablefix.RawTPSignalWaitArgs): the siginfo of signal_generate and
 * signal_deliver may encode an error (a number), the pid of
 * sched_process_wait may be NULL. Found by falco's signal_deliver
 * program, which vercheck accepted and this kernel refused. */

char _license[] SEC("license") = "GPL";

/* signal_deliver(int sig, struct kernel_siginfo *info, struct k_sigaction *ka):
 * the siginfo read unchecked. */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without rawtp-signal-wait-args
SEC("tp_btf/signal_deliver")
__naked int s15_signal_deliver_info(void)
{
	asm volatile(
	"r1 = *(u64 *)(r1 + 8);"
	"r0 = *(u8 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The sigaction (arg2) stays a trusted pointer: its sa_flags are read. */
// vercheck: accept
SEC("tp_btf/signal_deliver")
__naked int s15_signal_deliver_action(void)
{
	asm volatile(
	"r1 = *(u64 *)(r1 + 16);"
	"r0 = *(u64 *)(r1 + 8);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* signal_generate(int sig, struct kernel_siginfo *info, struct task_struct *task, ...). */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without rawtp-signal-wait-args
SEC("tp_btf/signal_generate")
__naked int s15_signal_generate_info(void)
{
	asm volatile(
	"r1 = *(u64 *)(r1 + 8);"
	"r0 = *(u8 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* sched_process_wait(struct pid *pid): maybe NULL. */
// vercheck: reject "R1 invalid mem access 'trusted_ptr_or_null_'"
// vercheck: accept without rawtp-signal-wait-args
SEC("tp_btf/sched_process_wait")
__naked int s15_process_wait_pid(void)
{
	asm volatile(
	"r1 = *(u64 *)(r1 + 0);"
	"r0 = *(u8 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* Checked, it is read. */
// vercheck: accept
SEC("tp_btf/sched_process_wait")
__naked int s15_process_wait_pid_checked(void)
{
	asm volatile(
	"r1 = *(u64 *)(r1 + 0);"
	"if r1 == 0 goto 1f;"
	"r0 = *(u8 *)(r1 + 0);"
	"1: r0 = 0;"
	"exit;"
	::: __clobber_all);
}
