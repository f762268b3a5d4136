#include "progs.h"

/* Kfunc pointer arguments are trusted by default: NULL, or a pointer that
 * may be NULL, is refused for every parameter that is not __nullable or an
 * __opt buffer, whatever the kfunc's flags, even where a size of 0 would
 * make the access itself harmless. */

struct nf_conn {};

struct bpf_ct_opts {};

extern struct nf_conn *bpf_skb_ct_lookup(struct __sk_buff *, struct bpf_sock_tuple *, __u32,
					  struct bpf_ct_opts *, __u32) __ksym;
extern struct nf_conn *bpf_xdp_ct_lookup(struct xdp_md *, struct bpf_sock_tuple *, __u32,
					  struct bpf_ct_opts *, __u32) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;
extern int bpf_dynptr_from_xdp(struct xdp_md *x, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, char[64]);
} sound_kfunc_null_map SEC(".maps");

/* The well-formed call, which also gives the kfuncs their BTF. */
// vercheck: accept
SEC("tc")
int sound_kfunc_null_ct_ok(struct __sk_buff *ctx)
{
	char tuple[40] = {}, opts[16] = {};
	struct nf_conn *ct;

	ct = bpf_skb_ct_lookup(ctx, (void *)tuple, 12, (void *)opts, sizeof(opts));
	if (ct)
		bpf_ct_release(ct);
	return 0;
}

// vercheck: accept
SEC("xdp")
int sound_kfunc_null_xdp_ok(struct xdp_md *ctx)
{
	char tuple[40] = {}, opts[16] = {};
	struct bpf_dynptr d;
	struct nf_conn *ct;

	ct = bpf_xdp_ct_lookup(ctx, (void *)tuple, 12, (void *)opts, sizeof(opts));
	if (ct)
		bpf_ct_release(ct);
	bpf_dynptr_from_xdp(ctx, 0, &d);
	bpf_dynptr_slice(&d, 0, 0, 4);
	return bpf_dynptr_size(&d);
}

/* A NULL tuple of size 0. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg1"
SEC("tc")
__naked int sound_kfunc_null_tuple(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 0;"
		"*(u64 *)(r10 - 16) = r4;"
		"*(u64 *)(r10 - 8) = r4;"
		"r4 = r10;"
		"r4 += -16;"
		"r5 = 12;"
		"call %[bpf_skb_ct_lookup];"
		"if r0 == 0 goto l0_%=;"
		"r1 = r0;"
		"call %[bpf_ct_release];"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_skb_ct_lookup), __imm(bpf_ct_release)
		: __clobber_all);
}

/* A map value that may be NULL as the tuple. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg1"
SEC("xdp")
__naked int sound_kfunc_null_maybe_tuple(void)
{
	asm volatile(
		"r6 = r1;"
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[sound_kfunc_null_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"r1 = r6;"
		"r2 = r0;"
		"r3 = 12;"
		"r4 = 0;"
		"*(u64 *)(r10 - 32) = r4;"
		"*(u64 *)(r10 - 24) = r4;"
		"r4 = r10;"
		"r4 += -32;"
		"r5 = 12;"
		"call %[bpf_xdp_ct_lookup];"
		"if r0 == 0 goto l0_%=;"
		"r1 = r0;"
		"call %[bpf_ct_release];"
	"l0_%=:"
		"r0 = 2;"
		"exit;"
		:
		: __imm(bpf_xdp_ct_lookup), __imm(bpf_ct_release), __imm(bpf_map_lookup_elem),
		  __imm_addr(sound_kfunc_null_map)
		: __clobber_all);
}

/* NULL for a context or a dynptr argument of a kfunc without flags. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg0"
SEC("xdp")
__naked int sound_kfunc_null_ctx(void)
{
	asm volatile(
		"r1 = 0;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_xdp];"
		"r0 = 2;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_xdp)
		: __clobber_all);
}

// vercheck: reject "Possibly NULL pointer passed to trusted arg0"
SEC("xdp")
__naked int sound_kfunc_null_dynptr(void)
{
	asm volatile(
		"r1 = 0;"
		"call %[bpf_dynptr_size];"
		"r0 = 2;"
		"exit;"
		:
		: __imm(bpf_dynptr_size)
		: __clobber_all);
}

/* An __opt buffer may be NULL. */
// vercheck: accept
SEC("xdp")
__naked int sound_kfunc_null_opt_buffer(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_xdp];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 4;"
		"call %[bpf_dynptr_slice];"
		"r0 = 2;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_xdp), __imm(bpf_dynptr_slice)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
