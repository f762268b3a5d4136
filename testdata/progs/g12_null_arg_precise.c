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

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

/* The same for a kfunc's __opt buffer: bpf_dynptr_slice with buffer NULL
 * on the path walked first, 8 on the other. */
// vercheck: reject "arg#2 arg#3 memory, len pair leads to invalid memory access"
// vercheck: accept without null-arg-precise
SEC("tc")
__naked int g12_null_kfunc_opt_pruned(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"call %[bpf_get_prandom_u32];"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 4;"
	"if r0 != 0 goto 1f;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"goto 2f;"
	"1:"
	"r3 = 8;"
	"2:"
	"call %[bpf_dynptr_slice];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
	: __clobber_all);
}

/* In C, which also gives the object the kfuncs' BTF. */
// vercheck: accept
SEC("tc")
int g12_null_kfunc_c(struct __sk_buff *skb)
{
	struct bpf_dynptr p;
	__u8 *s;

	if (bpf_dynptr_from_skb(skb, 0, &p))
		return 0;
	s = bpf_dynptr_slice(&p, 0, 0, 1);
	return s ? *s : 0;
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
