// A BTF socket pointer as the value of a sockmap or sockhash update: the
// value argument is a socket there (resolve_map_arg_type makes it
// ARG_PTR_TO_BTF_ID_SOCK_COMMON), so a plain or trusted BTF pointer to a
// struct that begins with struct sock_common passes, at its start (an
// offset into it names another struct).
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct sock_common {
	int skc_family;
};

struct sock {
	struct sock_common __sk_common;
};

struct tcp_sock;
struct task_struct;

struct bpf_iter_meta {
	void *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

static struct tcp_sock *(*skc_to_tcp_sock)(void *sk) = (void *)137;

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} m13_sockmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKHASH);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} m13_sockhash SEC(".maps");

// vercheck: accept
SEC("tc")
int m13_sockmap_tcp_sock(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	struct tcp_sock *tp;
	__u32 key = 0;

	if (!sk)
		return 0;
	tp = skc_to_tcp_sock(sk);
	if (!tp)
		return 0;
	bpf_map_update_elem(&m13_sockmap, &key, tp, BPF_ANY);
	bpf_map_update_elem(&m13_sockhash, &key, tp, BPF_NOEXIST);
	return 0;
}

// vercheck: reject "R3 type=ptr_or_null_ expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("tc")
int m13_sockmap_tcp_sock_null(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	__u32 key = 0;

	if (!sk)
		return 0;
	bpf_map_update_elem(&m13_sockmap, &key, skc_to_tcp_sock(sk), BPF_ANY);
	return 0;
}

// vercheck: reject "R3 is of type tcp_sock but sock_common is expected"
SEC("tc")
int m13_sockmap_tcp_sock_off(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	struct tcp_sock *tp;
	__u32 key = 0;

	if (!sk)
		return 0;
	tp = skc_to_tcp_sock(sk);
	if (!tp)
		return 0;
	bpf_map_update_elem(&m13_sockmap, &key, (char *)tp + 8, BPF_ANY);
	return 0;
}

// vercheck: reject "R3 is of type task_struct but sock_common is expected"
SEC("iter/task")
int m13_sockmap_task(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	__u32 key = 0;

	if (!task)
		return 0;
	bpf_map_update_elem(&m13_sockmap, &key, task, BPF_ANY);
	return 0;
}
