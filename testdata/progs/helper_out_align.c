// Integer out-arguments of helpers (bpf_strtol's result, bpf_check_mtu's
// mtu_len) must be naturally aligned: the kernel checks the pointer's
// alignment strictly after the memory access check, for any pointer kind.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: reject "misaligned stack access off 0+-10+0 size 4"
SEC("tc")
__naked int check_mtu_len_misaligned(void)
{
	asm volatile (
	"r2 = 0;"
	"*(u64 *)(r10 - 16) = r2;"
	"r3 = r10;"
	"r3 += -12;"
	"*(u32 *)(r10 - 8) = r2;"
	"r3 += 2;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_check_mtu];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_check_mtu)
	: __clobber_all);
}

// vercheck: reject "misaligned stack access off 0+-28+0 size 8"
SEC("cgroup/sysctl")
__naked int strtol_res_misaligned(void)
{
	asm volatile (
	"r1 = 0x3132;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = 0;"
	"*(u64 *)(r10 - 32) = r1;"
	"*(u64 *)(r10 - 24) = r1;"
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 2;"
	"r3 = 0;"
	"r4 = r10;"
	"r4 += -28;"
	"call %[bpf_strtol];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_strtol)
	: __clobber_all);
}

// vercheck: accept
SEC("cgroup/sysctl")
__naked int strtol_res_aligned(void)
{
	asm volatile (
	"r1 = 0x3132;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 2;"
	"r3 = 0;"
	"r4 = r10;"
	"r4 += -16;"
	"call %[bpf_strtol];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_strtol)
	: __clobber_all);
}
