#include "progs.h"

/* A static function whose BTF parameter is a struct bpf_dynptr *: the
 * kernel checks a static callee's prototype against the caller's
 * registers too (check_func_call -> btf_check_subprog_call ->
 * btf_check_func_arg_match), and for a dynptr argument that matches,
 * process_dynptr_func marks the dynptr's two stack slots read at the call
 * (mark_dynptr_read), whether the callee reads them or not. The slots are
 * then live at the checkpoints before the call, which keeps a path with
 * another dynptr (or none) from being pruned there. vercheck checked the
 * arguments only for the log and marked nothing: 28 insns for the first
 * program, the kernel's 34. Found by a review of subprogram calls against
 * the live kernel (session 33). */
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, long);
} s33_dyn_map SEC(".maps");

__attribute__((used)) static __noinline int s33_takes_dynptr(struct bpf_dynptr *p)
{
	asm volatile ("" :: "r"(p));
	return 0;
}

/* One path makes a dynptr at fp-16, the other zeroes the slots: the
 * kernel's call of s33_takes_dynptr reads the dynptr, so the join does
 * not prune the second path against the first. */
// vercheck: accept
SEC("socket")
__naked int s33_dynptr_static_join(void)
{
	asm volatile (
	"r1 = 0; *(u32 *)(r10 - 20) = r1;"
	"r2 = r10; r2 += -20; r1 = %[s33_dyn_map] ll; call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 9f;"
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"if r0 > 7 goto 1f;"
	"r1 = r6; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call %[bpf_dynptr_from_mem];"
	"goto 2f;"
"1:"	"r1 = 0; *(u64 *)(r10 - 16) = r1; *(u64 *)(r10 - 8) = r1;"
"2:"	"r1 = r10; r1 += -16; call s33_takes_dynptr;"
"9:"	"r0 = 0; exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm(bpf_dynptr_from_mem), __imm_addr(s33_dyn_map)
	: __clobber_all);
}

/* Both paths pass the same dynptr: the read changes nothing here. */
// vercheck: accept
SEC("socket")
__naked int s33_dynptr_static_twice(void)
{
	asm volatile (
	"r1 = 0; *(u32 *)(r10 - 20) = r1;"
	"r2 = r10; r2 += -20; r1 = %[s33_dyn_map] ll; call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 9f;"
	"r6 = r0;"
	"r1 = r6; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call %[bpf_dynptr_from_mem];"
	"call %[bpf_get_prandom_u32];"
	"if r0 > 7 goto 1f;"
	"r7 = 1;"
	"goto 2f;"
"1:"	"r7 = 2;"
"2:"	"r1 = r10; r1 += -16; call s33_takes_dynptr;"
"9:"	"r0 = 0; exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm(bpf_dynptr_from_mem), __imm_addr(s33_dyn_map)
	: __clobber_all);
}
