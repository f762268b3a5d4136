#include "progs.h"

/* reg_not_null's kinds of pointer that are never NULL, which decide a
 * compare of a pointer with 0 (is_branch_taken). 6.18.0
 * (stablefix.NotNullNoXskBuf, the first verdicts) leaves XDP sockets out:
 * "if r0 != 0" of an xskmap value already checked is explored both ways,
 * and the read above the frame on the impossible edge is refused. The
 * running 6.18.44-fc-v1045 kernel (the "without" verdicts), as 7.x, counts
 * them in and only follows the edge a valid socket takes (found by the
 * fuzz run of seed 20261206, mutant 14451.1: one instruction fewer). */

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, int);
} f13_xsk SEC(".maps");

/* A compare with the constant 0. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without not-null-no-xsk-buf
SEC("xdp")
__naked int f13_xsk_ne_imm(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_xsk] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"if r0 != 0 goto l0_%=;"
	"r0 = *(u64 *)(r10 + 8);"
	"l0_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(f13_xsk) : __clobber_all);
}

/* A compare with a register known to hold 0, the socket on the right. */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
// vercheck: accept without not-null-no-xsk-buf
SEC("xdp")
__naked int f13_xsk_eq_reg(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_xsk] ll;"
	"call %[bpf_map_lookup_elem];"
	"r7 = 0;"
	"if r0 == 0 goto l0_%=;"
	"if r7 == r0 goto l1_%=;"
	"goto l0_%=;"
	"l1_%=: r0 = *(u64 *)(r10 + 8);"
	"l0_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(f13_xsk) : __clobber_all);
}

/* The fuzz run's program: both edges of the undecided compare lead to
 * the exit, which is walked twice (insn_processed 14 against 13). */
// vercheck: accept
SEC("xdp")
__naked int f13_xsk_ne_reg_insns(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_xsk] ll;"
	"call %[bpf_map_lookup_elem];"
	"r6 = r0;"
	"r0 = 0;"
	"r7 = r0;"
	"if r6 == 0 goto l0_%=;"
	"if r6 != r7 goto l0_%=;"
	"l0_%=: exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(f13_xsk) : __clobber_all);
}

/* A 32-bit compare stays undecided on every kernel (the low half of a
 * valid pointer may be 0: stablefix.Jmp32PtrNull). */
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("xdp")
__naked int f13_xsk_ne_imm32(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_xsk] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"if w0 != 0 goto l0_%=;"
	"r0 = *(u64 *)(r10 + 8);"
	"l0_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(f13_xsk) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
