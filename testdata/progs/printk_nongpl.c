#include "progs.h"

/* The same call as printk.c from an object that is not GPL-licensed. */
// vercheck: reject "cannot call GPL-restricted function from non-GPL compatible program"
SEC("socket")
int printk_nongpl(struct __sk_buff *skb)
{
	bpf_printk("len %u", skb->len);
	return 0;
}

char _license[] SEC("license") = "MIT";
