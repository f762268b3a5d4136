#include "progs.h"
char _license[] SEC("license") = "GPL";

/* Sections libbpf 1.8 knows and cilium/ebpf does not: sleepable
 * tracepoints (tp.s, tracepoint.s, raw_tp.s, raw_tracepoint.s, tp_btf.s),
 * loaded with BPF_F_SLEEPABLE, which this kernel refuses. vercheck guessed
 * them socket filters and accepted them, though no loader makes a socket
 * filter of them (session 35's loader differential, 21 selftest programs). */

// vercheck: reject "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable"
SEC("tp.s/syscalls/sys_enter_getpid")
int s37_tp_sleepable(void *ctx)
{
	return 0;
}

// vercheck: reject "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable"
SEC("tracepoint.s/syscalls/sys_enter_getpid")
int s37_tracepoint_sleepable(void *ctx)
{
	return 0;
}

// vercheck: reject "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable"
SEC("raw_tp.s/sys_enter")
int s37_raw_tp_sleepable(void *ctx)
{
	return 0;
}

// vercheck: reject "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable"
SEC("raw_tracepoint.s/sys_enter")
int s37_raw_tracepoint_sleepable(void *ctx)
{
	return 0;
}

// vercheck: reject "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable"
SEC("tp_btf.s/sys_enter")
int s37_tp_btf_sleepable(void *ctx)
{
	return 0;
}
