#include "progs.h"

/* Typed ksyms: per-CPU kernel variables read through bpf_this_cpu_ptr and
 * bpf_per_cpu_ptr. The loader links each load of their address as libbpf
 * does (ld_imm64 with BPF_PSEUDO_BTF_ID and the variable's vmlinux BTF id),
 * and the kernel then needs the symbol's address: the kernel these
 * expectations come from is built without CONFIG_KALLSYMS_ALL, so
 * kallsyms knows no data symbol and every program is refused at its first
 * ksym. The verdicts once the address is found (what the 6.18 source and
 * the selftests test_ksyms_btf*.c expect) are checked by
 * verifier.TestKsymTyping, with a kallsyms that has the symbols. */

struct rq {
	int cpu;
} __attribute__((preserve_access_index));

extern const struct rq runqueues __ksym;
extern const int bpf_prog_active __ksym;

// vercheck: reject "ldimm64 failed to find the address for kernel symbol 'runqueues'."
SEC("tc")
int pc_ksym_this_cpu(struct __sk_buff *skb)
{
	struct rq *rq = bpf_this_cpu_ptr(&runqueues);
	const int *active = bpf_this_cpu_ptr(&bpf_prog_active);

	return rq->cpu + *active;
}

// vercheck: reject "ldimm64 failed to find the address for kernel symbol 'runqueues'."
SEC("tc")
int pc_ksym_per_cpu_checked(struct __sk_buff *skb)
{
	struct rq *rq = bpf_per_cpu_ptr(&runqueues, 0);
	const int *active = bpf_per_cpu_ptr(&bpf_prog_active, skb->len);
	int ret = 0;

	if (rq)
		ret += rq->cpu;
	if (active)
		ret += *active;
	return ret;
}

// vercheck: reject "ldimm64 failed to find the address for kernel symbol 'runqueues'."
SEC("tc")
int pc_ksym_per_cpu_unchecked(struct __sk_buff *skb)
{
	struct rq *rq = bpf_per_cpu_ptr(&runqueues, 0);

	return rq->cpu;
}

// vercheck: reject "ldimm64 failed to find the address for kernel symbol 'bpf_prog_active'."
SEC("tc")
int pc_ksym_write(struct __sk_buff *skb)
{
	int *active = bpf_this_cpu_ptr(&bpf_prog_active);

	*(volatile int *)active = 1;
	return 0;
}

// vercheck: reject "ldimm64 failed to find the address for kernel symbol 'runqueues'."
SEC("tc")
int pc_ksym_direct(struct __sk_buff *skb)
{
	return ((struct rq *)&runqueues)->cpu;
}

// vercheck: reject "ldimm64 failed to find the address for kernel symbol 'runqueues'."
SEC("tc")
int pc_ksym_moved(struct __sk_buff *skb)
{
	struct rq *rq = bpf_this_cpu_ptr((char *)&runqueues + 8);

	return rq->cpu;
}

char _license[] SEC("license") = "GPL";
