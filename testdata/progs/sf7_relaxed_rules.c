#include "progs.h"

/* Stable fixes of the 6.18.y series that touch stack slots and linked
 * scalars (package stablefix). The first expectation is the verdict with
 * the entry applied, the "without" line the verdict of a kernel without
 * it. varwrite-keeps-spill is a 6.18.0 rule that a later fix relaxed: a
 * kernel "has" it when it lacks upstream 4639eb9e30ab, so this machine's
 * kernel (which carries the fix) gives the "without" verdicts there. */

/* A pointer spilled to fp-8, then one byte somewhere in fp-4..fp-1
 * written through a variable offset. The bytes at fp-8..fp-5 stay a spill
 * of a register the write forgot, unless the slot is scrubbed. */
#define VARWRITE_OVER_SPILL						\
		"r6 = r1;"						\
		"*(u64 *)(r10 - 8) = r6;"				\
		"call %[bpf_get_prandom_u32];"				\
		"r0 &= 3;"						\
		"r2 = r10;"						\
		"r2 += -4;"						\
		"r2 += r0;"						\
		"r1 = 0;"						\
		"*(u8 *)(r2 + 0) = r1;"

// vercheck: reject "invalid size of register fill"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int sf7_varwrite_fill_u32(void)
{
	asm volatile(
		VARWRITE_OVER_SPILL
		"r0 = *(u32 *)(r10 - 8);"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* A full-width read of the slot: four spill bytes are not a spill. */
// vercheck: reject "invalid size of register fill"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int sf7_varwrite_fill_u64(void)
{
	asm volatile(
		VARWRITE_OVER_SPILL
		"r0 = *(u64 *)(r10 - 8);"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* The same slot handed to a helper that reads it: a privileged loader may
 * pass spilled bytes of any kind, scrubbed or not. */
// vercheck: accept
SEC("tc")
__naked int sf7_varwrite_helper_read(void)
{
	asm volatile(
		VARWRITE_OVER_SPILL
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_csum_diff];"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_get_prandom_u32), __imm(bpf_csum_diff)
		: __clobber_all);
}

/* The write reaches the slot's lowest byte, the one that says whether it
 * holds a spill: the other spill bytes read as neither data nor spill. */
// vercheck: reject "invalid read from stack off -8+2 size 8"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int sf7_varwrite_low_byte(void)
{
	asm volatile(
		"r6 = r1;"
		"*(u64 *)(r10 - 8) = r6;"
		"call %[bpf_get_prandom_u32];"
		"r0 &= 1;"
		"r2 = r10;"
		"r2 += -8;"
		"r2 += r0;"
		"r1 = 0;"
		"*(u8 *)(r2 + 0) = r1;"
		"r0 = *(u64 *)(r10 - 8);"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* r1 = r0 + 4. The first comparison of r0 refines r1 through the delta;
 * without the fix r1 takes r0's id and the second comparison copies r0's
 * bounds [10, 20] into r1, which is really in [14, 24]. */
// vercheck: reject "invalid variable-offset read from stack R2"
// vercheck: accept without sync-linked-keeps-id
SEC("socket")
__naked int sf7_sync_linked_alias(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r0 &= 0xff;"
		"r1 = r0;"
		"r1 += 4;"
		"if r0 < 10 goto 1f;"
		"if r0 > 20 goto 1f;"
		"r2 = r10;"
		"r2 += -24;"
		"r2 += r1;"
		"r0 = *(u8 *)(r2 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* The other edge of the same fix: r0, refined from r1 = r0 + 4, keeps its
 * id, so the copy r2 = r0 keeps the link and the second comparison of r1
 * proves r0 >= 10. Without the fix r0 gets a fresh id at the copy, the
 * division by zero is walked and refused. */
// vercheck: accept
// vercheck: reject "div by zero" without sync-linked-keeps-id
SEC("socket")
__naked int sf7_sync_linked_second_sync(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"r0 &= 0xff;"
		"r1 = r0;"
		"r1 += 4;"
		"if r1 < 10 goto 1f;"
		"r2 = r0;"
		"if r1 < 14 goto 1f;"
		"if r0 >= 10 goto 1f;"
		"r0 /= 0;"
		"1:"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

/* "r8 < r9" falls through with r8 at (or beyond) data_end, and that edge
 * is walked first; the taken edge, joining at the next instruction, never
 * checked r8 + 4. Pruning it against the stored mark (AT_PKT_END compared
 * as the byte count -1) would leave the read unverified. */
// vercheck: reject "R8 offset is outside of the packet"
// vercheck: accept without pkt-regsafe
SEC("xdp")
__naked int sf7_pkt_at_end_covers_unchecked(void)
{
	asm volatile(
		"r8 = *(u32 *)(r1 + %[data]);"
		"r9 = *(u32 *)(r1 + %[data_end]);"
		"if r8 < r9 goto +0;"
		"call %[bpf_get_prandom_u32];"
		"r0 = 0;"
		"r0 = 0;"
		"r0 = 0;"
		"if r8 >= r9 goto +1;"
		"r2 = *(u16 *)(r8 + 4);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32),
		  __imm_const(data, offsetof(struct xdp_md, data)),
		  __imm_const(data_end, offsetof(struct xdp_md, data_end))
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
