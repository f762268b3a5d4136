#include "progs.h"

/* More than 8192 pending branches in a program of two functions. The
 * kernel fails such a load with EFAULT (push_stack's "The sequence of
 * 8193 jumps is too complex."), and cilium/ebpf drops the log of an
 * EFAULT; the kernel comparison recovers it by loading the program once
 * more through bpf(2). That reload left out programs with BTF func info,
 * since a program of several functions needs it, so here the kernel side
 * was "could not load" where it is a rejection (found with the
 * differential fuzzer on bpf-examples' AF_XDP program, whose packet
 * parser is a function of its own). Each compare is against another
 * constant, so no branch decides a later one, and every taken edge waits
 * on the stack while the fall-through path goes on. */

static __naked __noinline int many_pending_branches(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		".set i, 0;"
		".rept 8200;"
		"if r0 == i goto +1;"
		"r1 = i;"
		".set i, i + 1;"
		".endr;"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

// vercheck: reject "The sequence of 8193 jumps is too complex."
SEC("socket")
int p10_jumps_in_subprog(struct __sk_buff *skb)
{
	return many_pending_branches();
}

char _license[] SEC("license") = "GPL";
