#include "progs.h"

/* bpf_fastcall: spills and fills of r1-r5 around a call of
 * bpf_get_smp_processor_id (inlined by the x86-64 verifier) at the lowest
 * stack slots of a subprogram are dropped after verification
 * (remove_fastcall_spills_fills), and the subprogram's stack depth shrinks
 * to where those slots start before the combined stack is measured. A
 * uprobe_multi program has no private stack: a main program using all 512
 * bytes may call a subprogram whose only stack is such a pattern. Any other
 * load or store at those slots from the subprogram (check_fastcall_stack_
 * contract), or a pattern around a call that is not fastcall, keeps the
 * stack: 512 + 16 bytes are too many. */

/* The pattern is dropped: 512+0. */
// vercheck: accept
SEC("uprobe.multi")
__naked int fc13_cumulative(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"call fc13_pattern_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_pattern_subprog(void)
{
	asm volatile (
	"r1 = 1;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A socket filter's bpf_get_smp_processor_id is bpf_base_func_proto's raw
 * one, which is not fastcall: the pattern, kept, keeps the stack. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("socket")
__naked int fc13_cumulative_socket(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"call fc13_pattern_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* A load of the pattern slot outside the pattern keeps it. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("uprobe.multi")
__naked int fc13_cumulative_read(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"call fc13_read_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_read_subprog(void)
{
	asm volatile (
	"r1 = 1;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"r2 = *(u64 *)(r10 - 8);"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* A pattern around bpf_get_prandom_u32, which is not fastcall, keeps the
 * subprogram's stack even though the other pattern is dropped. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
SEC("uprobe.multi")
__naked int fc13_cumulative_not_fastcall(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"call fc13_mixed_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_mixed_subprog(void)
{
	asm volatile (
	"r1 = 1;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_prandom_u32];"
	"r1 = *(u64 *)(r10 - 8);"
	"exit;"
	:: __imm(bpf_get_smp_processor_id), __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* A fixed-offset load through a pointer into the caller's stack counts
 * against the caller's frame, which it reads (stablefix.FastcallReadPtrFrame):
 * the callee's pattern is dropped. Upstream it counts against the current
 * frame, and the callee keeps its 8 bytes. */
// vercheck: accept
// vercheck: reject "combined stack size of 2 calls is 528. Too large" without fastcall-read-ptr-frame
SEC("uprobe.multi")
__naked int fc13_caller_read(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"*(u64 *)(r10 - 16) = r1;"
	"r1 = r10;"
	"r1 += -16;"
	"call fc13_caller_read_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_caller_read_subprog(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* The other way round: a subprogram reads its caller's pattern slot
 * through a pointer. The caller keeps its pattern (512+16); upstream the
 * reader's patterns are revoked and the caller's slot is dropped. */
// vercheck: reject "combined stack size of 2 calls is 528. Too large"
// vercheck: accept without fastcall-read-ptr-frame
SEC("uprobe.multi")
__naked int fc13_callee_reads_ptr(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"call fc13_spill_then_pass;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_spill_then_pass(void)
{
	asm volatile (
	"r1 = 1;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"r1 = r10;"
	"r1 += -8;"
	"call fc13_read_through;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

__attribute__((used)) __naked static void fc13_read_through(void)
{
	asm volatile (
	"r0 = *(u64 *)(r1 + 0);"
	"exit;"
	::: __clobber_all);
}

/* A store through a pointer into the caller's stack counts against the
 * caller's frame: the callee's pattern is dropped. */
// vercheck: accept
SEC("uprobe.multi")
__naked int fc13_caller_write(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"r1 = r10;"
	"r1 += -16;"
	"call fc13_caller_write_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_caller_write_subprog(void)
{
	asm volatile (
	"r2 = 7;"
	"*(u64 *)(r1 + 0) = r2;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 8);"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* Patterns are looked for from the lowest spill slot of the subprogram
 * upwards: with a store at -24 below the pairs at -16 and -8, the walk from
 * -24 matches nothing and the subprogram keeps its 24 bytes. */
// vercheck: reject "combined stack size of 2 calls is 544. Too large"
SEC("uprobe.multi")
__naked int fc13_not_lowest(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"call fc13_not_lowest_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_not_lowest_subprog(void)
{
	asm volatile (
	"r3 = 3;"
	"*(u64 *)(r10 - 24) = r3;"
	"r1 = 1;"
	"r2 = 2;"
	"*(u64 *)(r10 - 16) = r1;"
	"*(u64 *)(r10 - 8) = r2;"
	"call %[bpf_get_smp_processor_id];"
	"r2 = *(u64 *)(r10 - 8);"
	"r1 = *(u64 *)(r10 - 16);"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* The same two pairs at the lowest slots: dropped, 512+0. */
// vercheck: accept
SEC("uprobe.multi")
__naked int fc13_two_pairs(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"call fc13_two_pairs_subprog;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

__attribute__((used)) __naked static void fc13_two_pairs_subprog(void)
{
	asm volatile (
	"r1 = 1;"
	"r2 = 2;"
	"*(u64 *)(r10 - 8) = r2;"
	"*(u64 *)(r10 - 16) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 16);"
	"r2 = *(u64 *)(r10 - 8);"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

/* The 6.12 verifier let a pattern spill go 48 bytes below the 512
 * (check_stack_slot_within_bounds); 6.18 does not. */
// vercheck: reject "invalid write to stack R10 off=-520 size=8"
SEC("uprobe.multi")
__naked int fc13_deep_spill(void)
{
	asm volatile (
	"r1 = 42;"
	"*(u64 *)(r10 - 512) = r1;"
	"*(u64 *)(r10 - 520) = r1;"
	"call %[bpf_get_smp_processor_id];"
	"r1 = *(u64 *)(r10 - 520);"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_smp_processor_id) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
