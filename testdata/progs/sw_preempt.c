#include "progs.h"

/* Preempt-disabled sections: bpf_preempt_disable/bpf_preempt_enable nest,
 * must be balanced on every path that leaves the program, and nothing that
 * might sleep may run inside one.
 */

extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;

// vercheck: accept
SEC("tc")
int sw_preempt_nested(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	bpf_preempt_disable();
	bpf_preempt_enable();
	bpf_preempt_enable();
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog cannot be used inside bpf_preempt_disable-ed region"
SEC("tc")
int sw_preempt_missing(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	if (skb->len > 10)
		bpf_preempt_enable();
	return 0;
}

// vercheck: reject "unmatched attempt to enable preemption (kernel function bpf_preempt_enable)"
SEC("tc")
int sw_preempt_unmatched(struct __sk_buff *skb)
{
	bpf_preempt_enable();
	return 0;
}

static __attribute__((noinline)) int disable_in_subprog(int x)
{
	bpf_preempt_disable();
	return x;
}

/* A subprogram may leave the section open for its caller to close. */
// vercheck: accept
SEC("tc")
int sw_preempt_subprog(struct __sk_buff *skb)
{
	int r = disable_in_subprog(skb->len);

	bpf_preempt_enable();
	return r & 1;
}

/* A tail call leaves the program: no section may be open. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} sw_preempt_jmp SEC(".maps");

// vercheck: reject "tail_call cannot be used inside bpf_preempt_disable-ed region"
SEC("tc")
int sw_preempt_tail_call(struct __sk_buff *skb)
{
	bpf_preempt_disable();
	bpf_tail_call(skb, &sw_preempt_jmp, 0);
	bpf_preempt_enable();
	return 0;
}

char _license[] SEC("license") = "GPL";
