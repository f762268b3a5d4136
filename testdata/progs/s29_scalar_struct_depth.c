#include "progs.h"

/* A kfunc's pointer argument the verifier takes as memory must point to
 * scalars or to a struct of scalars; __btf_type_is_scalar_struct follows
 * nested structs three levels deep and logs "max struct nesting depth
 * exceeded" where it stops (the kernel's struct nf_conn), before the
 * refusal. Found from a level-2 log difference of bit-flip fuzzing. */

struct nf_conn {};

struct bpf_ct_opts {};

extern struct nf_conn *bpf_skb_ct_lookup(struct __sk_buff *, struct bpf_sock_tuple *, __u32,
					  struct bpf_ct_opts *, __u32) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;

char _license[] SEC("license") = "GPL";

/* The well-formed call, which also gives the kfuncs their BTF. */
// vercheck: accept
SEC("tc")
int s29_ct_ok(struct __sk_buff *ctx)
{
	char tuple[40] = {}, opts[16] = {};
	struct nf_conn *ct;

	ct = bpf_skb_ct_lookup(ctx, (void *)tuple, 12, (void *)opts, sizeof(opts));
	if (ct)
		bpf_ct_release(ct);
	return 0;
}

/* A stack pointer for the connection: memory, and nf_conn nests deeper
 * than three levels. */
// vercheck: reject "arg#0 pointer type STRUCT nf_conn must point to scalar, or struct with scalar"
SEC("tc")
__naked int s29_ct_release_stack(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_ct_release];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_ct_release)
	: __clobber_all);
}
