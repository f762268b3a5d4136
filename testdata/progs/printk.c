#include "progs.h"

/* bpf_printk (bpf_trace_printk) is GPL-only; this object's license is GPL.
 * The format string lives in .rodata, a read-only global data map. */
// vercheck: accept
SEC("socket")
int printk(struct __sk_buff *skb)
{
	bpf_printk("len %u", skb->len);
	return 0;
}

char _license[] SEC("license") = "GPL";
