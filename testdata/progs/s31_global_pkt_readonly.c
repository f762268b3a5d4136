// A packet pointer for a global function's memory argument, or a kfunc's,
// in a program type that may only read packet data (cgroup_skb, lwt_in,
// lwt_out, lwt_seg6local, sk_reuseport, flow_dissector): this kernel build
// refuses the call ("function access to the packet is not allowed", then
// "Caller passes invalid args" or the kfunc's "memory, len pair leads to
// invalid memory access"). A global function is verified once, for
// writable memory, so it could store into a packet its program may not
// change; bpf_dynptr_slice copies into its buffer. Helpers are not
// concerned (their packet access is checked by other rules). The check
// comes first among the argument's, before the memory check and the one
// for functions that change packet data (s30_global_pkt_arg.c). A build
// rule, not in 6.18.0 (stablefix.PktMemArgNeedsWrite). Found as a log
// difference of mutation fuzzing (a cgroup_skb mutant of
// s30_global_pkt_arg.c), then false accepts.
#include "progs.h"
char _license[] SEC("license") = "GPL";

extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;

__noinline int s31_read(struct __sk_buff *skb, __u32 *p)
{
	if (!p || !skb)
		return 0;
	return *(volatile __u32 *)p & 1;
}

__noinline int s31_write(struct __sk_buff *skb, __u32 *p)
{
	if (!p || !skb)
		return 0;
	*p = 0;
	return 1;
}

__noinline int s31_pull(struct __sk_buff *skb, __u32 *p)
{
	if (!skb)
		return 0;
	bpf_skb_pull_data(skb, 0);
	return p != 0;
}

/* The result is hidden from clang, which otherwise drops the "& 1" it
 * knows the function to have done: the verifier does not know it. */
#define S31_PKT_CALL(fn)                                                    \
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end; \
	int ret;                                                            \
	if (data + 4 > end)                                                 \
		return 1;                                                   \
	ret = fn(skb, data);                                                \
	asm volatile("" : "+r"(ret));                                       \
	return ret & 1;

/* The store the rule keeps out of a read-only program's packet. */
// vercheck: reject "Caller passes invalid args into func#1 ('s31_write')"
// vercheck: accept without pkt-mem-arg-needs-write
SEC("cgroup_skb/ingress")
int s31_cgroup_skb_write(struct __sk_buff *skb)
{
	S31_PKT_CALL(s31_write)
}

/* A function that only reads is refused all the same. */
// vercheck: reject "Caller passes invalid args into func#1 ('s31_read')"
// vercheck: accept without pkt-mem-arg-needs-write
SEC("cgroup_skb/ingress")
int s31_cgroup_skb_read(struct __sk_buff *skb)
{
	S31_PKT_CALL(s31_read)
}

// vercheck: reject "Caller passes invalid args into func#1 ('s31_read')"
// vercheck: accept without pkt-mem-arg-needs-write
SEC("lwt_in")
int s31_lwt_in_read(struct __sk_buff *skb)
{
	S31_PKT_CALL(s31_read)
}

// vercheck: reject "Caller passes invalid args into func#1 ('s31_read')"
// vercheck: accept without pkt-mem-arg-needs-write
SEC("flow_dissector")
int s31_flow_dissector_read(struct __sk_buff *skb)
{
	S31_PKT_CALL(s31_read)
}

/* Both rules apply: this one is checked first. */
// vercheck: reject "Caller passes invalid args into func#1 ('s31_pull')"
SEC("cgroup_skb/ingress")
int s31_cgroup_skb_pull(struct __sk_buff *skb)
{
	S31_PKT_CALL(s31_pull)
}

/* A program type that may write packet data passes it. */
// vercheck: accept
SEC("lwt_xmit")
int s31_lwt_xmit_write(struct __sk_buff *skb)
{
	S31_PKT_CALL(s31_write)
}

/* NULL is no packet pointer. */
// vercheck: accept
SEC("cgroup_skb/ingress")
int s31_cgroup_skb_null(struct __sk_buff *skb)
{
	int ret = s31_read(skb, 0);

	asm volatile("" : "+r"(ret));
	return ret & 1;
}

/* Unchecked: the memory check speaks first. */
// vercheck: reject "Caller passes invalid args into func#1 ('s31_read')"
SEC("cgroup_skb/ingress")
int s31_cgroup_skb_unchecked(struct __sk_buff *skb)
{
	int ret = s31_read(skb, (void *)(long)skb->data);

	asm volatile("" : "+r"(ret));
	return ret & 1;
}

/* Before the offset check too: four bytes before the packet. */
// vercheck: reject "Caller passes invalid args into func#1 ('s31_read')"
SEC("cgroup_skb/ingress")
__naked int s31_cgroup_skb_before_data(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + 76);"
		"r2 += -4;"
		"call s31_read;"
		"r0 = 1;"
		"exit;"
		::: __clobber_all);
}

/* bpf_dynptr_slice may copy the packet's bytes into its buffer: here the
 * packet itself, which this program may only read. */
#define S31_SLICE_INTO_PACKET                                               \
	struct bpf_dynptr d;                                                \
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end; \
	if (data + 8 > end)                                                 \
		return 1;                                                   \
	bpf_dynptr_from_skb(skb, 0, &d);                                    \
	return bpf_dynptr_slice(&d, 0, data, 8) != 0;

// vercheck: reject "arg#2 arg#3 memory, len pair leads to invalid memory access"
// vercheck: accept without pkt-mem-arg-needs-write
SEC("cgroup_skb/ingress")
int s31_cgroup_skb_slice_into_packet(struct __sk_buff *skb)
{
	S31_SLICE_INTO_PACKET
}

// vercheck: reject "arg#2 arg#3 memory, len pair leads to invalid memory access"
// vercheck: accept without pkt-mem-arg-needs-write
SEC("lwt_in")
int s31_lwt_in_slice_into_packet(struct __sk_buff *skb)
{
	S31_SLICE_INTO_PACKET
}

// vercheck: accept
SEC("tc")
int s31_tc_slice_into_packet(struct __sk_buff *skb)
{
	S31_SLICE_INTO_PACKET
}

/* Unchecked: the rule speaks before the memory check. */
// vercheck: reject "arg#2 arg#3 memory, len pair leads to invalid memory access"
SEC("cgroup_skb/ingress")
int s31_cgroup_skb_slice_unchecked(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_skb(skb, 0, &d);
	return bpf_dynptr_slice(&d, 0, (void *)(long)skb->data, 8) != 0;
}

/* A helper that reads the packet (bpf_csum_diff takes packet pointers)
 * is not concerned. */
// vercheck: accept
SEC("lwt_in")
int s31_lwt_in_csum_diff(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;

	if (data + 8 > end)
		return 1;
	return bpf_csum_diff(data, 4, 0, 0, 0) != 0;
}
