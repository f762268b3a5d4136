#include "progs.h"

/* A global function's argument is the kprobe context when it points to
 * the typedef bpf_user_pt_regs_t, to struct pt_regs, or to a struct named
 * bpf_user_pt_regs_t (older programs declare an empty one): the kernel
 * compares the name with the declared context type before resolving it.
 */

struct bpf_user_pt_regs_t {};

__attribute__((noinline)) int sw_kprobe_ctx_sub(struct bpf_user_pt_regs_t *ctx)
{
	return bpf_get_smp_processor_id() + (ctx != 0);
}

// vercheck: accept
SEC("kprobe")
int sw_kprobe_ctx_struct(void *ctx)
{
	return sw_kprobe_ctx_sub(ctx);
}

char _license[] SEC("license") = "GPL";
