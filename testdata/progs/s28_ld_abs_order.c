// check_ld_abs asks whether the program type may read the packet with
// LD_ABS/LD_IND (may_access_skb) before it looks at the instruction's
// reserved fields. Encoded by hand: no assembler writes the reserved
// fields.
#include "progs.h"

char _license[] SEC("license") = "GPL";

#define LD_ABS_B_R1 ".8byte 0x0000000000000130;" /* LD_ABS B with dst r1 */

// vercheck: reject "BPF_LD_[ABS|IND] instructions not allowed for this program type"
SEC("xdp")
__naked int s28_ld_abs_xdp_reserved(void)
{
	asm volatile ("r6 = r1;" LD_ABS_B_R1 "r0 = 0; exit;" ::: __clobber_all);
}

// vercheck: reject "BPF_LD_[ABS|IND] uses reserved fields"
SEC("socket")
__naked int s28_ld_abs_socket_reserved(void)
{
	asm volatile ("r6 = r1;" LD_ABS_B_R1 "r0 = 0; exit;" ::: __clobber_all);
}

// vercheck: reject "BPF_LD_[ABS|IND] instructions not allowed for this program type"
SEC("xdp")
__naked int s28_ld_abs_xdp(void)
{
	asm volatile ("r6 = r1; r0 = *(u8 *)skb[0]; r0 = 0; exit;" ::: __clobber_all);
}
