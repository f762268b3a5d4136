#include "gr_graph.h"

/* A program loaded libbpf's way, with the object's whole BTF (it names a
 * global holding a graph root), and an exception callback the loader
 * appends. The kernel finds the callback by name in that BTF
 * (btf_find_by_name_kind) and then looks for that type id in func_info;
 * vercheck's kernel harness gave the appended callback a second copy of
 * its FUNC, and the kernel said "exception callback type id not found in
 * func_info" where libbpf's load is accepted (session 34, a review of
 * exits by program type). The second program has a global function
 * return the global's address: a subprogram's exit must be a scalar. */
char _license[] SEC("license") = "GPL";

struct s34_rnode {
	long key;
	struct bpf_rb_node node;
};

struct bpf_spin_lock s34_glock SEC(".bss.A");
struct bpf_rb_root s34_groot __contains(s34_rnode, node) SEC(".bss.A");

__attribute__((noinline)) int s34_ecb(__u64 cookie)
{
	return 1;
}

// vercheck: accept
SEC("cgroup_skb/ingress") __attribute__((btf_decl_tag("exception_callback:s34_ecb")))
__naked int s34_exc_cb_graph_global(void)
{
	asm volatile ("r0 = %[s34_glock] ll; r0 = 1; exit;" :: __imm_addr(s34_glock) : __clobber_all);
}

__attribute__((noinline)) int s34_global_addr(void)
{
	return (long)&s34_glock;
}

// vercheck: reject "At subprogram exit the register R0 is not a scalar value"
SEC("cgroup_skb/ingress") __attribute__((btf_decl_tag("exception_callback:s34_ecb")))
__naked int s34_exc_cb_global_addr(void)
{
	asm volatile ("call s34_global_addr; r0 = 1; exit;" ::: __clobber_all);
}
