#include "progs.h"

/* Rejection sites the mutation fuzzer does not reach (issue 11): two spin
 * locks held at once and flow dissector keys (check_flow_keys_access: a
 * fixed offset inside struct bpf_flow_keys; no arithmetic on the
 * pointer). process_spin_lock's "Locking two bpf_spin_locks are not
 * allowed" cannot be reached in 6.18: only the bpf_spin_lock helper takes
 * a plain lock, and do_check refuses any helper call but bpf_spin_unlock
 * while a lock, plain or resilient, is held. */

char _license[] SEC("license") = "GPL";

struct locked {
	struct bpf_spin_lock lock;
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct locked);
} s15_first SEC(".maps"), s15_second SEC(".maps");

/* One lock, then the other: the second call is refused as a call. */
// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int s15_two_locks(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked *a = bpf_map_lookup_elem(&s15_first, &key);
	struct locked *b = bpf_map_lookup_elem(&s15_second, &key);

	if (!a || !b)
		return 0;
	bpf_spin_lock(&a->lock);
	bpf_spin_lock(&b->lock);
	a->n++;
	bpf_spin_unlock(&b->lock);
	bpf_spin_unlock(&a->lock);
	return 0;
}

/* One after the other is fine. */
// vercheck: accept
SEC("tc")
int s15_locks_in_turn(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked *a = bpf_map_lookup_elem(&s15_first, &key);
	struct locked *b = bpf_map_lookup_elem(&s15_second, &key);

	if (!a || !b)
		return 0;
	bpf_spin_lock(&a->lock);
	a->n++;
	bpf_spin_unlock(&a->lock);
	bpf_spin_lock(&b->lock);
	b->n++;
	bpf_spin_unlock(&b->lock);
	return 0;
}

/* The keys are read and written at fixed offsets inside the struct. */
// vercheck: accept
SEC("flow_dissector")
int s15_flow_keys(struct __sk_buff *skb)
{
	struct bpf_flow_keys *keys = skb->flow_keys;

	keys->nhoff = keys->thoff + 4;
	keys->ip_proto = 6;
	return BPF_OK;
}

/* One byte past the struct. */
// vercheck: reject "invalid access to flow keys off=56 size=1"
SEC("flow_dissector")
__naked int s15_flow_keys_past_end(void)
{
	asm volatile(
	"r2 = *(u64 *)(r1 + %[flow_keys]);"
	"r0 = *(u8 *)(r2 + 56);"
	"r0 = 0;"
	"exit;"
	:: __imm_const(flow_keys, offsetof(struct __sk_buff, flow_keys)) : __clobber_all);
}

/* Before the struct. */
// vercheck: reject "invalid access to flow keys off=-1 size=1"
SEC("flow_dissector")
__naked int s15_flow_keys_before(void)
{
	asm volatile(
	"r2 = *(u64 *)(r1 + %[flow_keys]);"
	"r0 = *(u8 *)(r2 - 1);"
	"r0 = 0;"
	"exit;"
	:: __imm_const(flow_keys, offsetof(struct __sk_buff, flow_keys)) : __clobber_all);
}

/* A variable offset into the keys. */
// vercheck: reject "R2 pointer arithmetic on flow_keys prohibited"
SEC("flow_dissector")
__naked int s15_flow_keys_var_off(void)
{
	asm volatile(
	"r2 = *(u64 *)(r1 + %[flow_keys]);"
	"r3 = *(u16 *)(r2 + 0);"
	"r3 &= 7;"
	"r2 += r3;"
	"r0 = *(u8 *)(r2 + 0);"
	"r0 = 0;"
	"exit;"
	:: __imm_const(flow_keys, offsetof(struct __sk_buff, flow_keys)) : __clobber_all);
}
