#include "progs.h"
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>

/* A TC classifier reading the Ethernet header through skb->data after
 * comparing against skb->data_end. */
// vercheck: accept
SEC("tc")
int tc_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return TC_ACT_SHOT;
	if (eth->h_proto == bpf_htons(ETH_P_ARP))
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
