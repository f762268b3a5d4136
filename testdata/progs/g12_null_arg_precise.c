#include "progs.h"

/* A NULL passed where a helper takes NULL skips the argument's type
 * checks, and since upstream "Register is null precise fixes"
 * (kernel-patches/bpf PR 13620, on this machine's 6.18.44-fc-v1045 build)
 * the zero is marked precise: a state where the register holds another
 * number is no longer pruned against it (stablefix.NullArgPrecise). */

/* bpf_csum_diff(from = NULL) on the path walked first, from = 8 on the
 * other, joined at the call: with the fix the second path is walked and
 * refused; without, it is pruned. */
// vercheck: reject "R1 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
// vercheck: accept without null-arg-precise
SEC("tc")
__naked int g12_null_mem_arg_pruned(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r1 = 0;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0;"
	"r5 = 0;"
	"if r0 != 0 goto 1f;"
	"goto 2f;"
	"1:"
	"r1 = 8;"
	"2:"
	"call %[bpf_csum_diff];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_csum_diff) : __clobber_all);
}

/* Both paths pass NULL: one state covers the other either way. */
// vercheck: accept
SEC("tc")
__naked int g12_null_mem_arg_both(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r1 = 0;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0;"
	"r5 = 0;"
	"if r0 != 0 goto 1f;"
	"goto 2f;"
	"1:"
	"r3 = 0;"
	"2:"
	"call %[bpf_csum_diff];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_csum_diff) : __clobber_all);
}

static long g12_count(__u32 index, void *ctx)
{
	return 0;
}

/* A NULL callback context: precise, the log shows it marked. */
// vercheck: accept
SEC("tc")
int g12_null_loop_ctx(struct __sk_buff *skb)
{
	bpf_loop(4, g12_count, 0, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
