/* The programs freplace programs replace functions of (fr_ext.c,
 * extension_test.go). Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c fr_target.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__attribute__((noinline)) int fr_len(struct __sk_buff *skb, int add)
{
	return skb ? skb->len + add : 0;
}

__attribute__((noinline)) static int fr_static(struct __sk_buff *skb)
{
	return skb->mark;
}

/* A pointer to memory makes a static function's prototype unreliable
 * (btf_prepare_func_args takes only ints, enums and the context there). */
__attribute__((noinline)) static int fr_static_mem(int *p)
{
	return p ? *p : 0;
}

__attribute__((noinline)) int fr_verdict(struct __sk_buff *skb)
{
	return skb->len > 100;
}

SEC("tc")
int fr_tc(struct __sk_buff *skb)
{
	int v = skb->mark;

	return fr_len(skb, 1) + fr_static(skb) + fr_static_mem(&v);
}

SEC("cgroup_skb/ingress")
int fr_cgroup(struct __sk_buff *skb)
{
	return fr_verdict(skb);
}

char _license[] SEC("license") = "GPL";
