// A helper reads only the registers its prototype names: bpf_get_branch_snapshot
// takes (entries, size) in its bpf_func_proto, though its C declaration
// also has a flags argument, so r3 may be left uninitialised; the
// arguments it does name must be initialised.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: accept
SEC("kprobe")
__naked int branch_snapshot_two_args(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 8;"
	"call %[bpf_get_branch_snapshot];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_branch_snapshot)
	: __clobber_all);
}

// vercheck: reject "R2 !read_ok"
SEC("kprobe")
__naked int branch_snapshot_no_size(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_get_branch_snapshot];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_branch_snapshot)
	: __clobber_all);
}
