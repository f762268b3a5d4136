// bpf_sk_assign's socket in TC programs is ARG_PTR_TO_BTF_ID_SOCK_COMMON:
// the kernel's list of accepted kinds ends in the BTF pointers.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: reject "R2 type=scalar expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("tc")
__naked int sk_assign_scalar(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = 0;"
	"call %[bpf_sk_assign];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_sk_assign)
	: __clobber_all);
}
