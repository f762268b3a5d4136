#include "progs.h"

/* CO-RE loads and stores of a field whose kernel size differs from the
 * object's own declaration, relocated as libbpf relocates them
 * (relo_core.c: bpf_core_calc_relo, bpf_core_patch_insn): the access takes
 * the kernel field's size when both fields are unsigned integers or
 * pointers, and is poisoned otherwise. cilium/ebpf moves the offset alone,
 * and vercheck, which relocated with it, verified a two-byte read of a
 * four-byte field, or a signed read libbpf never lets through (false
 * accepts against libbpf), and refused widened accesses libbpf narrows
 * (false rejects). Found by session 36's CO-RE differential against
 * libbpf 1.8. vercheck relocates an object as libbpf does, and accepts
 * only what cilium/ebpf's relocation leaves acceptable too: a loader of
 * either kind trusts the accept. */
char _license[] SEC("license") = "GPL";

#define PAI __attribute__((preserve_access_index))

struct __sk_buff___u16 { __u16 mark; } PAI;
struct __sk_buff___u64 { __u64 mark; } PAI;
struct __sk_buff___s32 { __s32 mark; } PAI;
struct pt_regs___int { int di; } PAI;
struct pt_regs___u32 { __u32 di; } PAI;

/* A __u16 for __sk_buff's __u32 mark: libbpf loads four bytes, so the
 * value may exceed 0xffff and the dereference of 0 below is reached. */
// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("tc")
int s36_narrow_u16_load(struct __sk_buff *skb)
{
	__u32 m = ((struct __sk_buff___u16 *)skb)->mark;

	asm volatile ("" : "+r"(m));
	if (m > 0xffff)
		asm volatile ("r0 = 0; r0 = *(u64 *)(r0 + 0);" ::: "r0");
	return 0;
}

/* A __u64 for a __u32: libbpf narrows the load and the store to four
 * bytes, a context access the kernel allows; cilium/ebpf keeps eight
 * bytes, which it refuses. */
// vercheck: reject "invalid bpf_context access off=8 size=8"
SEC("tc")
int s36_wide_u64_load(struct __sk_buff *skb)
{
	return ((struct __sk_buff___u64 *)skb)->mark != 0;
}

// vercheck: reject "invalid bpf_context access off=8 size=8"
SEC("tc")
int s36_wide_u64_store(struct __sk_buff *skb)
{
	((struct __sk_buff___u64 *)skb)->mark = 5;
	return 0;
}

/* Same size, signed against unsigned: nothing to adjust. */
// vercheck: accept
SEC("tc")
int s36_same_size_signed(struct __sk_buff *skb)
{
	return ((struct __sk_buff___s32 *)skb)->mark > 0;
}

/* A signed int for pt_regs' unsigned long di: libbpf poisons the load. */
// vercheck: reject "invalid func unknown#195896080"
SEC("kprobe/s36")
int s36_signed_int_load(struct pt_regs *ctx)
{
	return ((struct pt_regs___int *)ctx)->di;
}

/* An unsigned __u32 for it: a four-byte load of di. */
// vercheck: accept
SEC("kprobe/s36")
int s36_unsigned_u32_load(struct pt_regs *ctx)
{
	return ((struct pt_regs___u32 *)ctx)->di & 1;
}
