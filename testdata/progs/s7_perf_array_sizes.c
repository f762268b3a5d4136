// A perf event array whose definition gives no key or value size is
// created with 4-byte keys and values (the loaders fill them in), and the
// verifier checks a key argument against that size before it refuses the
// map type for the helper (check_map_func_compatibility comes after the
// arguments).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
} s7_events SEC(".maps");

const volatile __u64 s7_ro[3] = { 1, 2, 3 };

/* A 24-byte read-only key covers the 4 bytes: the map type is refused. */
// vercheck: reject "cannot pass map_type 4 into func bpf_map_lookup_elem#1"
SEC("xdp")
__naked int s7_perf_lookup_rodata_key(void)
{
	asm volatile(
		"r1 = %[s7_events] ll;"
		"r2 = %[s7_ro] ll;"
		"call %[bpf_map_lookup_elem];"
		"r0 = 2;"
		"exit;"
		:: __imm_addr(s7_events), __imm_addr(s7_ro), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* Two bytes of key are too few for the 4-byte key. */
// vercheck: reject "R2 min value is outside of the allowed memory range"
SEC("xdp")
__naked int s7_perf_lookup_short_key(void)
{
	asm volatile(
		"r1 = %[s7_events] ll;"
		"r2 = %[s7_ro] ll;"
		"r2 += 22;"
		"call %[bpf_map_lookup_elem];"
		"r0 = 2;"
		"exit;"
		:: __imm_addr(s7_events), __imm_addr(s7_ro), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* The usual use: an event to the current CPU's buffer. */
// vercheck: accept
SEC("xdp")
int s7_perf_output(struct xdp_md *ctx)
{
	__u64 v = ctx->ingress_ifindex;

	bpf_perf_event_output(ctx, &s7_events, BPF_F_CURRENT_CPU, &v, sizeof(v));
	return XDP_PASS;
}
