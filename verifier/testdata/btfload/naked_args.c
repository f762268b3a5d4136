#include "progs.h"

/* BTF the kernel's load refuses (btf_func_check: "Invalid arg#1", EINVAL
 * and no verifier log): clang leaves the parameters of a naked function
 * unnamed. Under cilium/ebpf a program whose func_info names such a
 * function has no verdict; libbpf loads the whole object without BTF. A
 * naked function without parameters, and a kfunc declared with unnamed
 * parameters (libbpf names them, cilium/ebpf never sends them), pass. */
char _license[] SEC("license") = "GPL";

extern void *bpf_cast_to_kern_ctx(void *) __ksym;

__attribute__((naked, noinline)) int naked_unnamed_arg(int x)
{
	asm volatile ("r0 = 0; exit;" ::: );
}

__attribute__((naked, noinline)) int naked_no_args(void)
{
	asm volatile ("r0 = 0; exit;" ::: );
}

SEC("socket")
int bl_calls_unnamed(struct __sk_buff *skb)
{
	return naked_unnamed_arg(skb->len);
}

SEC("socket")
int bl_calls_no_args(struct __sk_buff *skb)
{
	return naked_no_args();
}

SEC("tc")
int bl_extern_unnamed(struct __sk_buff *skb)
{
	return bpf_cast_to_kern_ctx(skb) ? 0 : 1;
}
