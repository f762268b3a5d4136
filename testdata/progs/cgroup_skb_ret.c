#include "progs.h"

/* A cgroup ingress program may only return 0 (drop) or 1 (allow); the
 * verifier checks the exit value of this program type. */
// vercheck: reject "At program exit the register R0 has"
SEC("cgroup_skb/ingress")
int cgroup_skb_ret(struct __sk_buff *skb)
{
	return 2;
}

char _license[] SEC("license") = "GPL";
