#include "progs.h"

/* A struct_ops program in a member the kernel's struct has as no function
 * pointer (tcp_congestion_ops.owner is a struct module *, .list a struct
 * list_head): the object's own declaration of the struct says otherwise,
 * and cilium/ebpf sets the member's index as the expected attach type.
 * check_struct_ops_btf_id refuses it ("attach to invalid member"), before
 * the member's support and check_member; vercheck said unsupported
 * (session 34's struct_ops review). libbpf refuses such an object. */
char _license[] SEC("license") = "GPL";

struct sock {
	int sk_err;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	char name[16];
	void (*owner)(struct sock *sk);
	void (*list)(struct sock *sk);
};

// vercheck: reject "attach to invalid member owner(@idx 12) of struct tcp_congestion_ops"
SEC("struct_ops/s34_owner")
__naked void s34_owner(void)
{
	asm volatile ("r0 = 0; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct tcp_congestion_ops s34_ops_owner = { .owner = (void *)s34_owner, .name = "s34o" };

// vercheck: reject "attach to invalid member list(@idx 13) of struct tcp_congestion_ops"
SEC("struct_ops/s34_list")
__naked void s34_list(void)
{
	asm volatile ("r0 = 0; exit;" ::: __clobber_all);
}

SEC(".struct_ops")
struct tcp_congestion_ops s34_ops_list = { .list = (void *)s34_list, .name = "s34l" };
