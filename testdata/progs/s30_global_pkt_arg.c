// A packet pointer for a global function's memory argument, where the
// function may change packet data (calls bpf_skb_pull_data, itself or
// through its callees): this kernel build refuses the call ("arg#1 is a
// packet pointer, but func#1 may change packet data", then "Caller passes
// invalid args"). The function is verified once, for memory that no
// packet change invalidates, so a read through the argument after its
// own bpf_skb_pull_data would read freed packet memory. A build rule, not
// in 6.18.0 (stablefix.GlobalPktArgChangesData). Found as a message
// difference of mutation fuzzing, then a false accept.
#include "progs.h"
char _license[] SEC("license") = "GPL";

__noinline int s30_pull_then_read(struct __sk_buff *skb, __u32 *p)
{
	bpf_skb_pull_data(skb, 0);
	if (!p)
		return 0;
	return *p & 1;
}

__noinline int s30_read_only(struct __sk_buff *skb, __u32 *p)
{
	if (!p || !skb)
		return 0;
	return *p & 1;
}

__noinline int s30_pull_through(struct __sk_buff *skb, __u32 *p)
{
	return s30_pull_then_read(skb, p) + 1;
}

/* The packet, its first word checked, to the function that pulls. */
// vercheck: reject "Caller passes invalid args into func#1 ('s30_pull_then_read')"
// vercheck: accept without global-pkt-arg-changes-data
SEC("tc")
int s30_pkt_to_puller(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;

	if (data + 4 > end)
		return 0;
	return s30_pull_then_read(skb, data);
}

/* The same through a function that pulls only by its callee. */
// vercheck: reject "Caller passes invalid args into func#1 ('s30_pull_through')"
// vercheck: accept without global-pkt-arg-changes-data
SEC("tc")
int s30_pkt_to_puller_callee(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;

	if (data + 4 > end)
		return 0;
	return s30_pull_through(skb, data);
}

/* Unchecked: which of the two refusals comes first. */
// vercheck: reject "Caller passes invalid args into func#1 ('s30_pull_then_read')"
SEC("tc")
int s30_pkt_unchecked_to_puller(struct __sk_buff *skb)
{
	return s30_pull_then_read(skb, (void *)(long)skb->data);
}

/* The packet to a function that only reads: fine. */
// vercheck: accept
SEC("tc")
int s30_pkt_to_reader(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;

	if (data + 4 > end)
		return 0;
	return s30_read_only(skb, data);
}

/* Stack memory to the function that pulls: fine. */
// vercheck: accept
SEC("tc")
int s30_stack_to_puller(struct __sk_buff *skb)
{
	__u32 v = 7;

	return s30_pull_then_read(skb, &v);
}

/* The packet's metadata to the function that pulls. */
// vercheck: reject "Caller passes invalid args into func#1 ('s30_pull_then_read')"
// vercheck: accept without global-pkt-arg-changes-data
SEC("tc")
int s30_meta_to_puller(struct __sk_buff *skb)
{
	void *meta = (void *)(long)skb->data_meta, *data = (void *)(long)skb->data;

	if (meta + 4 > data)
		return 0;
	return s30_pull_then_read(skb, meta);
}
