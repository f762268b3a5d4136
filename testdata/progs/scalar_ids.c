// Scalar ids in state pruning. Since the 6.18 stable series a register
// that was linked to nothing in the checkpoint matches any id in the
// current state: two unlinked bounded offsets in the checkpoint must prune
// a later path where one is a copy of the other (the pruning shows in
// insn_processed).
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: accept
SEC("socket")
__naked int unlinked_checkpoint_prunes_copy(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r8 = r0;"
	"r8 &= 0x7f;"
	"call %[bpf_get_prandom_u32];"
	"r9 = r0;"
	"r9 &= 0x7f;"
	"call %[bpf_get_prandom_u32];"
	"if r0 s> 100 goto 2f;"
	"r3 = 1;"
	"r4 = 2;"
	"r5 = 3;"
	"r3 += r4;"
	"r3 += r5;"
	"r4 = r3;"
	"r5 = r4;"
	"r3 = 0;"
	"if r3 != 0 goto 1f;"
	"goto 1f;"
	"2: r9 = r8;"
	"1: r1 = r10;"
	"r1 += -256;"
	"r1 += r8;"
	"r1 += r9;"
	"r0 = *(u8 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_prandom_u32)
	: __clobber_all);
}
