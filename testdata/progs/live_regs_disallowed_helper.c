// Register liveness before a helper call the program type may not make:
// compute_live_registers asks get_call_summary, which finds no prototype
// for bpf_skb_cgroup_id in an XDP program and takes the call to read
// r1-r5. The call is never reached (the branch before it is decided), but
// r3 stays alive before the branch, so the second path, where r3 was never
// written, does not match the first one's checkpoint and is walked again
// (found by the mutation fuzzer: 23 insns against the kernel's 25).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u64);
	__type(value, __u64);
} live_regs_map SEC(".maps");

// vercheck: accept
SEC("xdp")
__naked int live_regs_disallowed_helper(void)
{
	asm volatile (
	"r6 = r1;"
	"r7 = *(u32 *)(r6 +0);"
	"r8 = *(u32 *)(r6 +4);"
	"r9 = r1;"
	"if r9 > r8 goto +0;"
	"r9 = 13;"
	"if w9 <= 0x69889433 goto +0;"
	"if r9 s<= 0xeae2477c goto l0_%=;"
	"r1 = %[live_regs_map] ll;"
	"r2 = r10;"
	"r2 += -192;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0x0 goto +1;"
	"r3 = *(u64 *)(r0 +0);"
	"goto +0;"
	"l0_%=:"
	"if r9 & r9 goto +1;"
	"call %[bpf_skb_cgroup_id];"
	"call %[bpf_get_prandom_u32];"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_skb_cgroup_id), __imm(bpf_get_prandom_u32), __imm_addr(live_regs_map)
	: __clobber_all);
}
