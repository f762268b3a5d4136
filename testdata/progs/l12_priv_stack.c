#include "progs.h"

/* Kprobe programs on builds that give them no private stack (stablefix
 * KprobeNoPrivStack): every frame of a chain counts towards the 512-byte
 * limit, a main function of 64 bytes or more too, and a bpf_loop
 * callback's frame as a callee's. Where the JIT gives such frames a stack
 * of their own (6.18.0 on x86-64), only the frames below 64 bytes add up;
 * tracepoint and raw_tracepoint programs keep private stacks here. */

/* 480 bytes of stack. */
static __noinline int l12_big_sub(int x)
{
	volatile char buf[480];
	buf[x & 255] = 1;
	return buf[(x + 1) & 255];
}

static int l12_big_cb(__u64 idx, void *ctx)
{
	volatile char buf[480];
	buf[idx & 255] = 1;
	return buf[(idx + 3) & 255] & 1;
}

/* 32 + 480 bytes: within the limit either way. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
int l12_ps_call_small_main(void *ctx)
{
	volatile __u64 a[4] = {};
	a[1] = bpf_get_prandom_u32();
	return l12_big_sub(a[1]);
}

/* 80 + 480 bytes: main has a private stack or is counted. */
// vercheck: reject "combined stack size of 2 calls is 560. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("kprobe/do_nanosleep")
int l12_ps_call_big_main(void *ctx)
{
	volatile __u64 a[10] = {};
	a[1] = bpf_get_prandom_u32();
	return l12_big_sub(a[1]);
}

// vercheck: accept
SEC("kprobe/do_nanosleep")
int l12_ps_cb_small_main(void *ctx)
{
	volatile __u64 a[4] = {};
	a[1] = bpf_get_prandom_u32();
	bpf_loop(2, l12_big_cb, (void *)&a, 0);
	return 0;
}

// vercheck: reject "combined stack size of 2 calls is 560. Too large"
// vercheck: accept without kprobe-no-priv-stack
SEC("kprobe/do_nanosleep")
int l12_ps_cb_big_main(void *ctx)
{
	volatile __u64 a[10] = {};
	a[1] = bpf_get_prandom_u32();
	bpf_loop(2, l12_big_cb, (void *)&a, 0);
	return 0;
}

// vercheck: reject "combined stack size of 2 calls is 560. Too large"
// vercheck: accept without tp-no-priv-stack
SEC("tp/syscalls/sys_enter_nanosleep")
int l12_ps_tp_call_big_main(void *ctx)
{
	volatile __u64 a[10] = {};
	a[1] = bpf_get_prandom_u32();
	return l12_big_sub(a[1]);
}

// vercheck: accept
SEC("tp/syscalls/sys_enter_nanosleep")
int l12_ps_tp_call_small_main(void *ctx)
{
	volatile __u64 a[4] = {};
	a[1] = bpf_get_prandom_u32();
	return l12_big_sub(a[1]);
}

// vercheck: accept
SEC("raw_tp/sys_enter")
int l12_ps_rawtp_call_small_main(void *ctx)
{
	volatile __u64 a[4] = {};
	a[1] = bpf_get_prandom_u32();
	return l12_big_sub(a[1]);
}

char _license[] SEC("license") = "GPL";
