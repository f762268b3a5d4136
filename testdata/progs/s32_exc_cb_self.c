#include "progs.h"

/* The exception callback tag of a main program naming the main program
 * itself: found by name, global, but its func_info offset is 0, which the
 * kernel takes for no callback ("invalid exception callback insn_off in
 * func_info: 0", EINVAL). vercheck said it was not in the BTF. Found by
 * probing load-time checks by hand (session 32). */
char _license[] SEC("license") = "GPL";

extern void bpf_throw(__u64 cookie) __ksym;

// vercheck: reject "invalid exception callback insn_off in func_info: 0"
SEC("tc")
__attribute__((btf_decl_tag("exception_callback:s32_exc_self")))
int s32_exc_self(struct __sk_buff *skb)
{
	if (skb->len > 10)
		bpf_throw(1);
	return 0;
}
