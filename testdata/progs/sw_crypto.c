#include "progs.h"

/* The crypto kfuncs (kernel/bpf/crypto.c): a syscall program makes a
 * context (a sleepable, acquiring kfunc) and must release or stash it;
 * packet programs may not make one.
 */

struct bpf_crypto_ctx {
	int usage;
} __attribute__((preserve_access_index));

struct bpf_crypto_params {
	char type[14];
	char algo[128];
	__u8 key[256];
	__u32 key_len;
	__u32 authsize;
};

extern struct bpf_crypto_ctx *bpf_crypto_ctx_create(const struct bpf_crypto_params *params,
						     __u32 params__sz, int *err) __ksym;
extern void bpf_crypto_ctx_release(struct bpf_crypto_ctx *ctx) __ksym;

// vercheck: accept
SEC("syscall")
int sw_crypto_create_release(void *ctx)
{
	struct bpf_crypto_params params = {
		.type = "skcipher",
		.algo = "ecb(aes)",
		.key_len = 16,
	};
	struct bpf_crypto_ctx *cctx;
	int err = 0;

	cctx = bpf_crypto_ctx_create(&params, sizeof(params), &err);
	if (cctx)
		bpf_crypto_ctx_release(cctx);
	return err;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("syscall")
int sw_crypto_create_leak(void *ctx)
{
	struct bpf_crypto_params params = {
		.type = "skcipher",
		.algo = "ecb(aes)",
		.key_len = 16,
	};
	int err = 0;

	return bpf_crypto_ctx_create(&params, sizeof(params), &err) != 0;
}

// vercheck: reject "calling kernel function bpf_crypto_ctx_create is not allowed"
SEC("tc")
int sw_crypto_create_in_tc(struct __sk_buff *skb)
{
	struct bpf_crypto_params params = {};
	struct bpf_crypto_ctx *cctx;
	int err = 0;

	cctx = bpf_crypto_ctx_create(&params, sizeof(params), &err);
	if (cctx)
		bpf_crypto_ctx_release(cctx);
	return 0;
}

char _license[] SEC("license") = "GPL";
