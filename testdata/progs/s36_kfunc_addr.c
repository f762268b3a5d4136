#include "progs.h"

/* The address of a kfunc (bpf_ksym_exists): libbpf loads it as a BTF-id
 * ld_imm64 of the kernel's function (src_reg BPF_PSEUDO_BTF_ID), which
 * the kernel makes read-only memory of size 0 (check_pseudo_btf_id);
 * cilium/ebpf, and vercheck's loader with it, loaded the BTF id as a plain
 * number, so arithmetic on the address was verified where the kernel
 * refuses it from libbpf. Found by session 36's CO-RE differential on
 * production objects (bcc's sigsnoop and falco's dump_task take kfunc
 * addresses). */
char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
};
extern struct task_struct *bpf_task_from_pid(int pid) __weak __ksym;

// vercheck: reject "R0 32-bit pointer arithmetic prohibited"
SEC("socket")
int s36_kfunc_addr_and(struct __sk_buff *skb)
{
	long p = (long)bpf_task_from_pid;

	asm volatile ("" : "+r"(p));
	return p & 1;
}

// vercheck: accept
SEC("socket")
int s36_kfunc_addr_exists(struct __sk_buff *skb)
{
	return bpf_task_from_pid != 0;
}
