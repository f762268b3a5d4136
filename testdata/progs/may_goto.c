#include "progs.h"

/* may_goto (BPF_JMP | BPF_JCOND, opcode 0xe5) spelled as raw bytes, since
 * the assembler of the pinned clang does not know the mnemonic:
 * code, registers (0), a 16-bit offset, a 32-bit immediate (0). */
#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

/* Counts while may_goto allows: the counter is never needed precisely, so
 * it is widened and the loop converges at once. */
// vercheck: accept
SEC("socket")
__naked int may_goto_count(void)
{
	asm volatile (
	"r0 = 0;"
	"r1 = 0;"
"l0_%=:"
	MAY_GOTO(2)
	"r1 += 1;"
	"goto l0_%=;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* Sums bytes of a 16-byte stack buffer at an index that wraps with a mask:
 * the index is precise, so iterations differ until it comes back to 0
 * (16 iterations); then a state repeats at another depth and the loop has
 * converged. */
// vercheck: accept
SEC("socket")
__naked int may_goto_masked_index(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"*(u64 *)(r10 - 16) = r1;"
	"r6 = 0;"
	"r7 = 0;"
"l0_%=:"
	MAY_GOTO(8)
	"r3 = r10;"
	"r3 += -16;"
	"r3 += r6;"
	"r4 = *(u8 *)(r3 + 0);"
	"r7 += r4;"
	"r6 += 1;"
	"r6 &= 15;"
	"goto l0_%=;"
	"r0 = r7;"
	"exit;"
	::: __clobber_all);
}

/* Indexes the buffer with an unmasked counter: the counter is precise, so
 * every iteration is a new state, until the seventeenth reads past the
 * buffer. */
// vercheck: reject "invalid read from stack R3 off=0 size=1"
SEC("socket")
__naked int may_goto_oob(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"*(u64 *)(r10 - 16) = r1;"
	"r6 = 0;"
"l0_%=:"
	MAY_GOTO(6)
	"r3 = r10;"
	"r3 += -16;"
	"r3 += r6;"
	"r4 = *(u8 *)(r3 + 0);"
	"r6 += 1;"
	"goto l0_%=;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
