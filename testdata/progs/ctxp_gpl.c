// GPL-only helpers seen from a program under a non-GPL license: some
// helpers are GPL-only in every program type (fib and MTU lookups, timers,
// bpf_perf_event_read), some only in some types (bpf_get_stackid is free
// for perf_event programs, bpf_get_func_ip for multi-kprobes).
#include "progs.h"

char _license[] SEC("license") = "Dual BSD/MIT";

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8 * sizeof(__u64));
} stacks SEC(".maps");

/* bpf_fib_lookup is GPL-only. */
// vercheck: reject "cannot call GPL-restricted function from non-GPL compatible program"
SEC("tc")
int ctxp_gpl_fib_lookup(struct __sk_buff *skb)
{
	struct bpf_fib_lookup params = {};

	params.ifindex = skb->ifindex;
	return bpf_fib_lookup(skb, &params, sizeof(params), 0) == 0 ? 0 : 2;
}

/* perf_event programs may take stack ids under any license. */
// vercheck: accept
SEC("perf_event")
int ctxp_gpl_stackid_perf_event(void *ctx)
{
	return bpf_get_stackid(ctx, &stacks, 0) < 0;
}

/* Other tracing programs may not. */
// vercheck: reject "cannot call GPL-restricted function from non-GPL compatible program"
SEC("kprobe/do_nanosleep")
int ctxp_gpl_stackid_kprobe(void *ctx)
{
	return bpf_get_stackid(ctx, &stacks, 0) < 0;
}

/* A multi-kprobe may read the probed address under any license. */
// vercheck: accept
SEC("kprobe.multi/do_nanosleep")
int ctxp_gpl_func_ip_multi(void *ctx)
{
	return bpf_get_func_ip(ctx) == 0;
}

/* A plain kprobe may not. */
// vercheck: reject "cannot call GPL-restricted function from non-GPL compatible program"
SEC("kprobe/do_nanosleep")
int ctxp_gpl_func_ip_kprobe(void *ctx)
{
	return bpf_get_func_ip(ctx) == 0;
}
