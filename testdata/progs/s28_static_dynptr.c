#include "progs.h"

/* The argument check of a static function taking a dynptr: the kernel
 * checks the caller's register as process_dynptr_func does and, at the
 * first mismatch, logs it and marks the function unreliable; the call goes
 * on (the verdict never depends on it). TestLogsMatchKernel compares the
 * logs. */

char _license[] SEC("license") = "GPL";

extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags, struct bpf_dynptr *ptr) __ksym;

static __noinline __attribute__((used)) int s28_dyn_arg(struct __sk_buff *skb, struct bpf_dynptr *p)
{
	return skb->len & 1;
}

/* A scalar where the dynptr goes: "arg#1 expected pointer to stack or
 * const struct bpf_dynptr". */
// vercheck: accept
SEC("tc")
__naked int s28_static_dynptr_scalar(void)
{
	asm volatile("r2 = -16; call s28_dyn_arg; r0 = 0; exit;" ::: __clobber_all);
}

/* Stack that holds no dynptr: "Expected an initialized dynptr as arg #1";
 * the second call logs nothing (the function is unreliable since). */
// vercheck: accept
SEC("tc")
__naked int s28_static_dynptr_uninit(void)
{
	asm volatile("r6 = r1; r2 = r10; r2 += -16; call s28_dyn_arg;"
		"r1 = r6; r2 = 0; call s28_dyn_arg; r0 = 0; exit;" ::: __clobber_all);
}

/* An initialised dynptr: nothing to log. */
// vercheck: accept
SEC("tc")
int s28_static_dynptr_ok(struct __sk_buff *skb)
{
	struct bpf_dynptr p;

	bpf_dynptr_from_skb(skb, 0, &p);
	return s28_dyn_arg(skb, &p);
}
