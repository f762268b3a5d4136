#include "progs.h"

/* Kernel functions called by BTF id, and BTF-typed tp_btf contexts. */


struct nf_conn {};

struct bpf_ct_opts {};

extern struct nf_conn *bpf_skb_ct_lookup(struct __sk_buff *, struct bpf_sock_tuple *, __u32,
					  struct bpf_ct_opts *, __u32) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;

/* Looks a connection up and releases it when found. */
// vercheck: accept
SEC("tc")
int kfunc_ct_lookup_release(struct __sk_buff *ctx)
{
	char buf[1];
	struct nf_conn *ct = bpf_skb_ct_lookup(ctx, (void *)buf, 0, (void *)buf, 0);

	if (ct)
		bpf_ct_release(ct);
	return 1;
}

/* Reads the first word of the new task (thread_info.flags). */
// vercheck: accept
SEC("tp_btf/task_newtask")
__naked int tp_btf_task_read(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"r0 = *(u64 *)(r1 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The second argument (clone_flags) is a number, not a pointer. */
// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("tp_btf/task_newtask")
__naked int tp_btf_scalar_deref(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 8);"
		"r0 = *(u64 *)(r1 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* Reads before the start of the task struct. */
// vercheck: reject "R1 is ptr_task_struct invalid negative access: off=-8"
SEC("tp_btf/task_newtask")
__naked int tp_btf_negative_off(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"r0 = *(u64 *)(r1 - 8);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The tracing context is read-only. */
// vercheck: reject "invalid bpf_context access off=0 size=8"
SEC("tp_btf/task_newtask")
__naked int tp_btf_ctx_write(void)
{
	asm volatile(
		"r2 = 0;"
		"*(u64 *)(r1 + 0) = r2;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The task pointer is a struct pointer, read only at full width. */
// vercheck: reject "invalid bpf_context access off=0 size=4"
SEC("tp_btf/task_newtask")
__naked int tp_btf_narrow_ptr(void)
{
	asm volatile(
		"r1 = *(u32 *)(r1 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
