#include "progs.h"

/* Hidden globals in named zero-initialised sections (".bss.<name>"), as
 * the kernel selftests' private(name) makes them: each section is a map of
 * its own, named after the section, whose value type is its Datasec.
 */

#define private(name) SEC(".bss." #name) __attribute__((visibility("hidden"), aligned(8)))

private(C) struct bpf_spin_lock sw_bss_lock;
private(C) __u64 sw_bss_total;
private(D) __u32 sw_bss_small[2];

// vercheck: accept
SEC("tc")
int sw_bss_locked_add(struct __sk_buff *skb)
{
	bpf_spin_lock(&sw_bss_lock);
	sw_bss_total += skb->len;
	bpf_spin_unlock(&sw_bss_lock);
	return 0;
}

/* The section holds 8 bytes: reading past them is out of the map value. */
// vercheck: reject "R1 min value is outside of the allowed memory range"
SEC("tc")
__naked int sw_bss_past_end(void)
{
	asm volatile(
		"r1 = %[sw_bss_small] ll;"
		"r0 = *(u32 *)(r1 + 8);"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(sw_bss_small)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
