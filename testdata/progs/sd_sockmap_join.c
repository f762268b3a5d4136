// A socket looked up in a sockmap keeps its map in the register (the
// kernel leaves map_ptr in the register's union, and regs_exact compares
// it), so at a join it never matches a stored state holding a socket from
// bpf_sk_lookup_*: the kernel explores the second path again, and so does
// vercheck (insn_processed shows it).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sd_socks SEC(".maps");

static __always_inline int sd_use(struct __sk_buff *skb, struct bpf_sock *sk)
{
	int ret = bpf_sk_assign(skb, sk, 0);

	bpf_sk_release(sk);
	return ret == 0 ? 1 : 2;
}

// vercheck: accept
SEC("tc")
int sd_sockmap_join(struct __sk_buff *skb)
{
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;
	__u32 zero = 0;

	if (skb->len <= 64) {
		sk = bpf_map_lookup_elem(&sd_socks, &zero);
		if (!sk)
			return 0;
	} else {
		sk = bpf_sk_lookup_udp(skb, &t, sizeof(t.ipv4), -1, 0);
		if (!sk)
			return 0;
	}
	if (skb->mark == 1)
		skb->mark = 2;
	if (skb->priority == 3)
		skb->priority = 4;
	return sd_use(skb, sk);
}
