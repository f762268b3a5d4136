// A trusted BTF pointer moved below its object and passed to a helper as
// memory: check_func_arg_reg_off (__check_ptr_off_reg) refuses the
// negative offset before the access is checked.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: reject "negative offset trusted_ptr_ ptr R1 off=-1 disallowed"
SEC("tp_btf/task_newtask")
__naked int sd2_btf_mem_negative(void)
{
	asm volatile (
	"r1 = *(u64 *)(r1 + 0);"
	"r1 += -1;"
	"w2 = 16;"
	"r3 = r10;"
	"r3 += -8;"
	"r4 = 0;"
	"*(u64 *)(r10 - 8) = r4;"
	"call %[bpf_strncmp];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_strncmp) : __clobber_all);
}
