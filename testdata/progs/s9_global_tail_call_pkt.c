#include "progs.h"

/* A tail call taken inside a subprogram comes back to the caller as a
 * return, with the packet possibly moved by the program it ran. A global
 * subprogram is verified once for any caller, so the kernel's summary of
 * it (changes_pkt_data, set by check_cfg for every helper that may move
 * the packet, bpf_tail_call included, and merged from callees) makes the
 * caller forget its packet pointers after the call. In the main program a
 * taken tail call never returns, so packet pointers survive it.
 */

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} s9_jumps SEC(".maps");

__attribute__((noinline)) int s9_global_jump(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &s9_jumps, 0);
	return 0;
}

static __attribute__((noinline)) int s9_static_jump(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &s9_jumps, 0);
	return skb->len;
}

/* The tail call sits in a static function that the global one calls. */
__attribute__((noinline)) int s9_global_via_static(struct __sk_buff *skb)
{
	return s9_static_jump(skb) + 1;
}

// vercheck: reject "invalid mem access 'scalar'"
SEC("tc")
int s9_pkt_after_global_tail_call(struct __sk_buff *skb)
{
	__u8 *data = (void *)(long)skb->data;

	if (data + 4 > (__u8 *)(long)skb->data_end)
		return 0;
	s9_global_jump(skb);
	return data[3];
}

// vercheck: reject "invalid mem access 'scalar'"
SEC("tc")
int s9_pkt_after_nested_tail_call(struct __sk_buff *skb)
{
	__u8 *data = (void *)(long)skb->data;

	if (data + 4 > (__u8 *)(long)skb->data_end)
		return 0;
	s9_global_via_static(skb);
	return data[2];
}

// vercheck: accept
SEC("tc")
int s9_pkt_after_main_tail_call(struct __sk_buff *skb)
{
	__u8 *data = (void *)(long)skb->data;

	if (data + 4 > (__u8 *)(long)skb->data_end)
		return 0;
	bpf_tail_call(skb, &s9_jumps, 0);
	return data[1];
}

// vercheck: accept
SEC("tc")
int s9_pkt_reloaded_after_global(struct __sk_buff *skb)
{
	__u8 *data;

	s9_global_jump(skb);
	data = (void *)(long)skb->data;
	if (data + 4 > (__u8 *)(long)skb->data_end)
		return 0;
	return data[0];
}

char _license[] SEC("license") = "GPL";
