#include "progs.h"

/* Private stacks of kprobe programs by attach type
 * (stablefix.KprobeNoPrivStack). A main program with a 512-byte frame calls
 * a subprogram with a 32-byte one: 544 bytes in all, within the budget only
 * where the 512-byte frame gets a private stack (bpf_enable_priv_stack).
 * This machine's kernel gives none to plain kprobes, kretprobes and
 * ksyscalls (attach type 0, which perf_event_open may also attach to a
 * uprobe), uprobes, uprobe_multi and uprobe_session programs, and keeps it
 * for kprobe_multi and kprobe_session ones, as for tracepoint, perf_event
 * and raw_tp programs. Without the fix every kprobe program gets one. */

char _license[] SEC("license") = "GPL";

__attribute__((used)) __naked static void ps_sub(void)
{
	asm volatile (
	"r1 = 41;"
	"*(u64 *)(r10 - 32) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

#define DEEP_BODY \
	asm volatile ( \
	"r1 = 42;" \
	"*(u64 *)(r10 - 512) = r1;" \
	"call ps_sub;" \
	"r0 = 0;" \
	"exit;" \
	::: __clobber_all)

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("kprobe")
__naked int ps_kprobe(void) { DEEP_BODY; }

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("kretprobe")
__naked int ps_kretprobe(void) { DEEP_BODY; }

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("uprobe")
__naked int ps_uprobe(void) { DEEP_BODY; }

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("uprobe.s")
__naked int ps_uprobe_sleepable(void) { DEEP_BODY; }

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("uprobe.multi")
__naked int ps_uprobe_multi(void) { DEEP_BODY; }

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("uprobe.session")
__naked int ps_uprobe_session(void) { DEEP_BODY; }

// vercheck: accept
SEC("kprobe.multi")
__naked int ps_kprobe_multi(void) { DEEP_BODY; }

// vercheck: accept
SEC("kprobe.session")
__naked int ps_kprobe_session(void) { DEEP_BODY; }

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without tp-no-priv-stack
SEC("tracepoint")
__naked int ps_tracepoint(void) { DEEP_BODY; }

// vercheck: accept
SEC("perf_event")
__naked int ps_perf_event(void) { DEEP_BODY; }

// vercheck: reject "combined stack size of 2 calls is 544. Too large"
// vercheck: accept without tp-no-priv-stack
SEC("raw_tp")
__naked int ps_raw_tp(void) { DEEP_BODY; }

/* Writable raw tracepoints get none on any kernel. */
// vercheck: reject "combined stack size of 2 calls is 544. Too large"
SEC("raw_tp.w")
__naked int ps_raw_tp_writable(void) { DEEP_BODY; }
