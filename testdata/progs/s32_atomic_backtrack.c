#include "progs.h"

/* Precision backtracking over an atomic read-modify-write of a spilled
 * stack slot, the slot wanted precise after it (a join where the stored
 * state has the slot as a precise unknown scalar and the current path
 * changed it with the atomic, so propagate_precision asks for it):
 * - a non-fetching atomic (lock +=, lock |=) is backtracked as a store:
 *   its read of the spilled register recorded the slot in the jump
 *   history (check_stack_read_fixed_off, no destination register), so the
 *   slot is traded for the source register;
 * - a fetching one (fetch_add, xchg, cmpxchg) is backtracked as a load
 *   only (stablefix atomic-fetch-precise, backtrack_insn's BPF_LDX branch):
 *   an unwanted load register ends the step with the slot still wanted; a
 *   wanted one is followed into the slot.
 * Which register is marked decides whether the path with r7 = 1 is pruned
 * at label 4: vercheck had the two cases the other way round (different
 * insn_processed, same verdicts). Found by probing pruning and precision
 * by hand (session 32). The 32-bit forms read a spill narrower than the
 * slot's and record nothing.
 */
char _license[] SEC("license") = "GPL";

#define S32_PAD "r9 = 0; r9 = 0; r9 = 0; r9 = 0; r9 = 0; r9 = 0; r9 = 0; r9 = 0; r9 = 0;"

/* fp-8 holds an unknown spill; r7 is 0 or 1 at label 4; the atomic runs
 * on one side of the second diamond; the slot decides a stack offset. */
#define S32_ATOMIC_BODY(atomic)						\
	asm volatile (							\
	"call %[bpf_get_prandom_u32];"					\
	"*(u64 *)(r10 - 8) = r0;"					\
	"call %[bpf_get_prandom_u32];"					\
	"r6 = r0;"							\
	"r8 = 0;"							\
	"r7 = 0;"							\
	"if r6 & 2 goto 2f;"						\
	S32_PAD "if r9 != 0 goto 4f;" S32_PAD "if r9 != 0 goto 4f;"	\
	"goto 4f;"							\
"2:"									\
	"r7 = 1;"							\
"4:"									\
	"if r6 & 1 goto 3f;"						\
	S32_PAD "if r9 != 0 goto 1f;" S32_PAD "if r9 != 0 goto 1f;"	\
	S32_PAD "if r9 != 0 goto 1f;"					\
	"goto 1f;"							\
"3:"									\
	atomic								\
"1:"									\
	"r1 = *(u64 *)(r10 - 8);"					\
	"r1 &= 7;"							\
	"r2 = r10;"							\
	"r2 += -16;"							\
	"r2 += r1;"							\
	"r0 = *(u8 *)(r2 + 0);"						\
	"r0 = 0;"							\
	"exit;"								\
	:: __imm(bpf_get_prandom_u32) : __clobber_all)

// vercheck: accept
SEC("socket")
__naked int s32_lock_add(void)
{
	S32_ATOMIC_BODY("lock *(u64 *)(r10 - 8) += r7;");
}

// vercheck: accept
SEC("socket")
__naked int s32_lock_or(void)
{
	S32_ATOMIC_BODY("lock *(u64 *)(r10 - 8) |= r7;");
}

// vercheck: accept
SEC("socket")
__naked int s32_lock_add32(void)
{
	S32_ATOMIC_BODY("lock *(u32 *)(r10 - 8) += w7;");
}

// vercheck: accept
SEC("socket")
__naked int s32_fetch_add(void)
{
	S32_ATOMIC_BODY("r7 = atomic_fetch_add((u64 *)(r10 - 8), r7);");
}

// vercheck: accept
SEC("socket")
__naked int s32_fetch_and(void)
{
	S32_ATOMIC_BODY("r7 = atomic_fetch_and((u64 *)(r10 - 8), r7);");
}

// vercheck: accept
SEC("socket")
__naked int s32_xchg(void)
{
	S32_ATOMIC_BODY("r7 = xchg_64(r10 - 8, r7);");
}

// vercheck: accept
SEC("socket")
__naked int s32_cmpxchg(void)
{
	S32_ATOMIC_BODY("r0 = r8; r0 = cmpxchg_64(r10 - 8, r0, r7);");
}

/* The fetched value wanted: followed into the slot, whose spill then
 * decides; the slot is not traded for the source register. */
// vercheck: accept
SEC("socket")
__naked int s32_fetch_add_loaded_wanted(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r0 &= 3;"
	"*(u64 *)(r10 - 8) = r0;"
	"call %[bpf_get_prandom_u32];"
	"r6 = r0;"
	"r7 = 0;"
	"if r6 & 2 goto 2f;"
	S32_PAD "if r9 != 0 goto 4f;" S32_PAD "if r9 != 0 goto 4f;"
	"goto 4f;"
"2:"
	"r7 = 4;"
"4:"
	"r7 = atomic_fetch_add((u64 *)(r10 - 8), r7);"
	"r2 = r10;"
	"r2 += -16;"
	"r2 += r7;"
	"r0 = *(u8 *)(r2 + 0);"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}
