// kfunc calls of BTF id 0 (what an old loader left for an unresolved weak
// kfunc). add_kfunc_call lets them through the load and check_kfunc_call
// through the walk, without touching a register; fixup_kfunc_call, after
// the dead-code passes, refuses one a path reached. Encoded by hand: no
// assembler writes a kfunc call without its relocation.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// r1 survives the call (no caller-saved register is cleared), so the walk
// ends well and the refusal comes after it.
// vercheck: reject "invalid kernel function call not eliminated in verifier pass"
SEC("socket")
__naked int tv10_kfunc_zero_reached(void)
{
	asm volatile (
	"r1 = 0;"
	".8byte 0x0000000000002085;"
	"r0 = r1;"
	"exit;"
	::: __clobber_all);
}

// On a branch no path takes, the dead-code passes remove the call.
// vercheck: accept
SEC("socket")
__naked int tv10_kfunc_zero_dead(void)
{
	asm volatile (
	"r0 = 0;"
	"if r0 == 0 goto l0_%=;"
	".8byte 0x0000000000002085;"
	"l0_%=:"
	"exit;"
	::: __clobber_all);
}
