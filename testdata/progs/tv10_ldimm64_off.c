// An ld_imm64 whose first half has a non-zero off field. No ld_imm64 uses
// off, and check_ld_imm refuses one when the walk reaches it (after the
// size check, before the dst register), while resolve_pseudo_ldimm64 at
// load time only looks at the second half. Encoded by hand: no assembler
// writes such an instruction.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// r0 = 0x100000001 with off 1.
// vercheck: reject "BPF_LD_IMM64 uses reserved fields"
SEC("socket")
__naked int tv10_ldimm64_off(void)
{
	asm volatile (
	".8byte 0x0000000100010018;"
	".8byte 0x0000000100000000;"
	"exit;"
	::: __clobber_all);
}

// The same instruction on a branch the walk never takes: do_check never
// reaches it, so nothing refuses it.
// vercheck: accept
SEC("socket")
__naked int tv10_ldimm64_off_dead(void)
{
	asm volatile (
	"r0 = 0;"
	"if r0 == 0 goto l0_%=;"
	".8byte 0x0000000100010018;"
	".8byte 0x0000000100000000;"
	"l0_%=:"
	"exit;"
	::: __clobber_all);
}
