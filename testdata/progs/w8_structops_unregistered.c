#include "progs.h"

/* A struct_ops program for an ops type the kernel's BTF describes but the
 * kernel never registered (Qdisc_ops on a kernel built without
 * CONFIG_NET_SCH_BPF: no struct bpf_struct_ops_Qdisc_ops in its BTF).
 * check_struct_ops_btf_id finds no descriptor for the attach BTF id and
 * refuses the program before verifying an instruction. */

char _license[] SEC("license") = "GPL";

struct Qdisc;
struct nlattr;
struct netlink_ext_ack;

struct Qdisc_ops {
	int (*init)(struct Qdisc *sch, struct nlattr *arg, struct netlink_ext_ack *extack);
	void (*reset)(struct Qdisc *sch);
	char id[16];
};

// vercheck: reject "is not a supported struct"
SEC("struct_ops/w8_qdisc_init")
__naked int w8_qdisc_init(void)
{
	asm volatile(
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "is not a supported struct"
SEC("struct_ops/w8_qdisc_reset")
__naked void w8_qdisc_reset(void)
{
	asm volatile(
		"exit;"
		::: __clobber_all);
}

SEC(".struct_ops.link")
struct Qdisc_ops w8_qdisc_ops = {
	.init = (void *)w8_qdisc_init,
	.reset = (void *)w8_qdisc_reset,
	.id = "w8_qdisc",
};
