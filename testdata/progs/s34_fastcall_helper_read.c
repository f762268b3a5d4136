#include "progs.h"

/* A bpf_fastcall spill/fill pair (r1 saved around the inlined
 * bpf_get_smp_processor_id) whose slot a helper, map key or global
 * function then reads: the live 6.18 kernel revokes the frame's fastcall
 * rewrite, so the frame keeps its pattern slots (stack depth), though
 * neither the 6.12 nor the 7.3 text of check_stack_range_initialized
 * checks the contract. vercheck applied the rewrite, and accepted a
 * frame whose kept slot made the combined stack 528 bytes (kernel: "Too
 * large"). A zero-sized read, and a read above the pattern slots, leave
 * the rewrite alone. Found by session 34's review of stack slots. */
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} s34_fc_map SEC(".maps");

__attribute__((noinline)) int s34_fc_glob_rd(__u64 *p)
{
	return p ? (int)*p : 0;
}

static __naked __attribute__((noinline, used)) int s34_fc_callee256(void)
{
	asm volatile ("*(u64 *)(r10 - 256) = 0; r0 = 0; exit;" ::: __clobber_all);
}

#define S34_PATTERN "r1 = 1; *(u64 *)(r10 - 8) = r1; call %[bpf_get_smp_processor_id]; r1 = *(u64 *)(r10 - 8);"

// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("tc")
__naked int s34_fc_helper_depth(void)
{
	asm volatile (
	"*(u64 *)(r10 - 256) = 0;"
	"r1 = 1;"
	"*(u64 *)(r10 - 264) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 264);"
	"r1 = r10;"
	"r1 += -264;"
	"r2 = 8; r3 = 0; r4 = 0; r5 = 0;"
	"call %[bpf_csum_diff];"
	"call s34_fc_callee256;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id), __imm(bpf_csum_diff) : __clobber_all);
}

/* The rewrite applies: 256 + 256 bytes. */
// vercheck: accept
SEC("tc")
__naked int s34_fc_untouched_depth(void)
{
	asm volatile (
	"*(u64 *)(r10 - 256) = 0;"
	"r1 = 1;"
	"*(u64 *)(r10 - 264) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 264);"
	"call s34_fc_callee256;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s34_fc_csum_size4(void)
{
	asm volatile (S34_PATTERN "r1 = r10; r1 += -8; r2 = 4; r3 = 0; r4 = 0; r5 = 0; call %[bpf_csum_diff]; r0 = 0; exit;"
	:: __imm(bpf_get_smp_processor_id), __imm(bpf_csum_diff) : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s34_fc_csum_size0(void)
{
	asm volatile (S34_PATTERN "r1 = r10; r1 += -8; r2 = 0; r3 = 0; r4 = 0; r5 = 0; call %[bpf_csum_diff]; r0 = 0; exit;"
	:: __imm(bpf_get_smp_processor_id), __imm(bpf_csum_diff) : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s34_fc_csum_var(void)
{
	asm volatile (S34_PATTERN "call %[bpf_get_prandom_u32]; r0 &= 4; r1 = r10; r1 += -8; r1 += r0; r2 = 4; r3 = 0; r4 = 0; r5 = 0; call %[bpf_csum_diff]; r0 = 0; exit;"
	:: __imm(bpf_get_smp_processor_id), __imm(bpf_csum_diff), __imm(bpf_get_prandom_u32) : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s34_fc_mapkey(void)
{
	asm volatile (S34_PATTERN "r1 = %[s34_fc_map] ll; r2 = r10; r2 += -4; call %[bpf_map_lookup_elem]; r0 = 0; exit;"
	:: __imm(bpf_get_smp_processor_id), __imm(bpf_map_lookup_elem), __imm_addr(s34_fc_map) : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s34_fc_global_arg(void)
{
	asm volatile (S34_PATTERN "r1 = r10; r1 += -8; call s34_fc_glob_rd; r0 = 0; exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}
