#include "progs.h"

/* resolve_pseudo_ldimm64 looks the map up (add_used_map) and checks it
 * against the program type before it looks at a map-value load's offset:
 * with an fd no map backs, the fd is what the kernel refuses, whatever
 * the offset. vercheck checked the offset with the instruction's shape,
 * first (a message difference the fuzzer found: seed 20261902, mutant
 * 67413). */

// r1 = BPF_PSEUDO_MAP_VALUE with imm 0 (fd 0, no map) and value offset
// 1 << 29, past BPF_MAX_VAR_OFF.
// vercheck: reject "fd 0 is not pointing to valid bpf_map"
SEC("socket")
__naked int l10_raw_fd_big_offset(void)
{
	asm volatile (
	".8byte 0x0000000000002118;"
	".8byte 0x2000000000000000;"
	"r0 = *(u64 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
