#include "progs.h"

/* A struct_ops program may hand the reference R0 holds back to the kernel
 * (check_reference_leak passes it over; check_return_code then wants the
 * operator's pointer return type, and a void operator checks nothing). So
 * a void operator that ends holding an acquired cgroup in R0 is taken, and
 * one that holds it in another register leaks it. Found by the fuzz run of
 * seed 20261501 as a false reject (the bpf_cgroup_from_id mutant of
 * structops_tcp_kfunc.c's cong_avoid). */

char _license[] SEC("license") = "GPL";

struct sock {
	int sk_err;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	char name[16];
};

struct cgroup {
	int level;
} __attribute__((preserve_access_index));
extern struct cgroup *bpf_cgroup_from_id(__u64 cgid) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

/* Acquired and released (and, being called from C, the kfunc's BTF
 * declaration the assembly below needs). */
// vercheck: accept
SEC("struct_ops/s15_ref_released")
void s15_ref_released(unsigned long long *ctx)
{
	struct cgroup *c = bpf_cgroup_from_id(ctx[1]);

	if (c)
		bpf_cgroup_release(c);
}

/* The reference ends in R0 of a void operator: taken back on 6.18.0, a
 * leak with structops-ref-ptr-ret. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
// vercheck: accept without structops-ref-ptr-ret
SEC("struct_ops/s15_ref_in_r0")
__naked void s15_ref_in_r0(void)
{
	asm volatile(
	"r1 = 0;"
	"call %[bpf_cgroup_from_id];"
	"exit;"
	:: __imm(bpf_cgroup_from_id) : __clobber_all);
}

/* The same reference moved out of R0: a leak. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("struct_ops/s15_ref_in_r6")
__naked void s15_ref_in_r6(void)
{
	asm volatile(
	"r1 = 0;"
	"call %[bpf_cgroup_from_id];"
	"r6 = r0;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_cgroup_from_id) : __clobber_all);
}

/* An operator returning a number: on 6.18.0 the reference in R0 passes
 * the leak check, and check_return_code, which compares a pointer only
 * with an operator's pointer return type, checks nothing else of a
 * tcp_congestion_ops program's R0: the kernel takes it. Builds with
 * structops-ref-ptr-ret take a reference back only from an operator
 * returning a pointer. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
// vercheck: accept without structops-ref-ptr-ret
SEC("struct_ops/s15_ref_ssthresh")
__naked __u32 s15_ref_ssthresh(void)
{
	asm volatile(
	"r1 = 0;"
	"call %[bpf_cgroup_from_id];"
	"exit;"
	:: __imm(bpf_cgroup_from_id) : __clobber_all);
}

SEC(".struct_ops")
struct tcp_congestion_ops s15_ops = {
	.ssthresh = (void *)s15_ref_ssthresh,
	.cong_avoid = (void *)s15_ref_in_r0,
	.name = "s15_ops",
};

SEC(".struct_ops")
struct tcp_congestion_ops s15_ops_released = {
	.cong_avoid = (void *)s15_ref_released,
	.name = "s15_ops_rel",
};

SEC(".struct_ops")
struct tcp_congestion_ops s15_ops_leak = {
	.cong_avoid = (void *)s15_ref_in_r6,
	.name = "s15_ops_leak",
};
