/* freplace programs against fr_target.o (extension_test.go), with the
 * expectations of the 6.18 sources (bpf_check_attach_target,
 * btf_check_func_type_match, do_check_common). Built with:
 * clang-19 -O2 -g -target bpfel -mcpu=v3 -I/usr/include/x86_64-linux-gnu
 *   -c fr_ext.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Reads the packet's length through its own context argument. */
SEC("freplace/fr_len")
int fr_new_len(struct __sk_buff *skb, int add)
{
	return skb->len * 2 + add;
}

/* Calls a helper of the target's program type (tc). */
SEC("freplace/fr_len")
int fr_new_len_helper(struct __sk_buff *skb, int add)
{
	return bpf_get_hash_recalc(skb) + add;
}

/* One argument too few. */
SEC("freplace/fr_len")
int fr_new_len_short(struct __sk_buff *skb)
{
	return 0;
}

/* The second argument has another size. */
SEC("freplace/fr_len")
int fr_new_len_long(struct __sk_buff *skb, long add)
{
	return add;
}

/* A context of another type. */
SEC("freplace/fr_len")
int fr_new_len_ctx(struct xdp_md *ctx, int add)
{
	return add;
}

/* Static functions cannot be replaced: one whose prototype is reliable
 * fails the type match, which takes global functions only; one whose
 * prototype is not is refused before. */
SEC("freplace/fr_static")
int fr_new_static(struct __sk_buff *skb)
{
	return 0;
}

SEC("freplace/fr_static_mem")
int fr_new_static_mem(int *p)
{
	return 0;
}

/* A cgroup_skb function: the extension's exit is checked as that program
 * type's main exit. */
SEC("freplace/fr_verdict")
int fr_new_verdict(struct __sk_buff *skb)
{
	return 1;
}

SEC("freplace/fr_verdict")
int fr_new_verdict_bad(struct __sk_buff *skb)
{
	return 7;
}

/* The whole main function of the target. */
SEC("freplace/fr_tc")
int fr_new_main(struct __sk_buff *skb)
{
	return skb->protocol;
}

char _license[] SEC("license") = "GPL";
