// A sockmap or sockhash given to a helper whose value argument is not the
// plain map value kind: resolve_map_arg_type refuses it ("invalid
// arg_type for sockmap/sockhash") before check_func_arg's NULL test, so
// a NULL value is not marked precise first (the level-2 log shows no
// mark_precise lines). Found as a log difference of mutation fuzzing (a
// mutant of the selftests' test_skmsg_load_helpers.c).
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} s31_sock_map SEC(".maps");

/* bpf_sk_storage_get's value is ARG_PTR_TO_MAP_VALUE_OR_NULL. */
// vercheck: reject "invalid arg_type for sockmap/sockhash"
SEC("sk_msg")
int s31_sk_storage_on_sockmap(struct sk_msg_md *msg)
{
	struct bpf_sock *sk = msg->sk;

	if (!sk)
		return SK_PASS;
	return bpf_sk_storage_get(&s31_sock_map, sk, 0, 0) ? SK_PASS : SK_DROP;
}

/* bpf_map_peek_elem's is ARG_PTR_TO_UNINIT_MAP_VALUE. */
// vercheck: reject "invalid arg_type for sockmap/sockhash"
SEC("sk_msg")
int s31_peek_on_sockmap(struct sk_msg_md *msg)
{
	__u64 v;

	return bpf_map_peek_elem(&s31_sock_map, &v) ? SK_PASS : SK_DROP;
}
