#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} keyed SEC(".maps");

/* Packet pointers may be passed only to helpers marked for packet access.
 * bpf_skb_load_bytes copies into its buffer but is not one of them, even in
 * a TC program that may read and write packet data directly. */
// vercheck: reject "helper access to the packet is not allowed"
SEC("tc")
__naked int pkt_to_load_bytes(void)
{
	asm volatile(
		"r6 = r1;"
		"r2 = *(u32 *)(r1 + %[data]);"
		"r3 = *(u32 *)(r1 + %[data_end]);"
		"r4 = r2;"
		"r4 += 8;"
		"if r4 > r3 goto 1f;"
		"r1 = r6;"
		"r3 = r2;"
		"r2 = 0;"
		"r4 = 8;"
		"call %[bpf_skb_load_bytes];"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_skb_load_bytes),
		  __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

/* bpf_csum_diff is marked: a checked packet range is a valid source. */
// vercheck: accept
SEC("tc")
__naked int pkt_to_csum_diff(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + %[data]);"
		"r3 = *(u32 *)(r1 + %[data_end]);"
		"r4 = r2;"
		"r4 += 8;"
		"if r4 > r3 goto 1f;"
		"r1 = r2;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_csum_diff];"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_csum_diff),
		  __imm_const(data, offsetof(struct __sk_buff, data)),
		  __imm_const(data_end, offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

/* A map key must point to memory; the message lists every accepted kind. */
// vercheck: reject "R2 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("socket")
__naked int map_key_scalar(void)
{
	asm volatile(
		"r2 = 5;"
		"r1 = %[keyed] ll;"
		"call %[bpf_map_lookup_elem];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_map_lookup_elem), __imm_addr(keyed)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
