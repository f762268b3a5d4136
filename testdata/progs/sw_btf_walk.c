#include "progs.h"

/* What a BTF struct walk gives besides scalars and pointers to structs:
 * a pointer to anything else (a byte buffer, a function) is read-only
 * untrusted memory, read by probe instructions at any offset and never
 * written; a pointer read through a union of several members is an
 * untrusted BTF pointer.
 */

struct sock_common {
	unsigned short skc_family;
} __attribute__((preserve_access_index));

struct sock {
	struct sock_common __sk_common;
} __attribute__((preserve_access_index));

struct sk_buff {
	struct sock *sk;
	unsigned char *data;
} __attribute__((preserve_access_index));

// vercheck: accept
SEC("tp_btf/kfree_skb")
int sw_walk_byte_buffer(__u64 *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx[0];
	unsigned char *data = skb->data;

	return data[100] + data[4000];
}

// vercheck: reject "cannot write into rdonly_untrusted_mem"
SEC("tp_btf/kfree_skb")
int sw_walk_byte_buffer_write(__u64 *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx[0];
	unsigned char *data = skb->data;

	data[0] = 1;
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} sw_walk_map SEC(".maps");

/* Untrusted memory is no memory argument of a helper. */
// vercheck: reject "R2 type=rdonly_untrusted_mem expected="
SEC("tp_btf/kfree_skb")
int sw_walk_byte_buffer_key(__u64 *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx[0];

	return bpf_map_lookup_elem(&sw_walk_map, skb->data) != 0;
}

/* skb->sk shares a union with ip_defrag_offset. */
// vercheck: accept
SEC("tp_btf/kfree_skb")
int sw_walk_union_pointer(__u64 *ctx)
{
	struct sk_buff *skb = (struct sk_buff *)ctx[0];
	struct sock *sk = skb->sk;

	if (!sk)
		return 0;
	return sk->__sk_common.skc_family;
}

char _license[] SEC("license") = "GPL";
