#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} socks SEC(".maps");

/* A sockmap's update takes a socket as its value: stack memory is refused. */
// vercheck: reject "R3 type=fp expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("socket")
int sockmap_update_stack_value(struct __sk_buff *skb)
{
	__u32 key = 0;
	__u64 val = skb->len;

	bpf_map_update_elem(&socks, &key, &val, BPF_ANY);
	return 0;
}

/* A socket filter may delete from a sockmap. */
// vercheck: accept
SEC("socket")
int sockmap_delete_socket(struct __sk_buff *skb)
{
	__u32 key = skb->len & 3;

	bpf_map_delete_elem(&socks, &key);
	return 0;
}

/* A tracepoint program may not change a sockmap. */
// vercheck: reject "cannot pass map_type 15 into func bpf_map_delete_elem#3"
SEC("tracepoint/syscalls/sys_enter_getpid")
int sockmap_delete_tracepoint(void *ctx)
{
	__u32 key = 0;

	bpf_map_delete_elem(&socks, &key);
	return 0;
}

char _license[] SEC("license") = "GPL";
