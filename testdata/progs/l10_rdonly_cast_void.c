#include "progs.h"

/* bpf_rdonly_cast(p, 0): a cast to void gives untrusted read-only memory
 * of size zero (check_special_kfunc), which loads read through the
 * kernel's probe reads at any offset and stores may not write. vercheck
 * said "unsupported". */

extern void *bpf_rdonly_cast(const void *obj__ign, __u32 btf_id__k) __ksym;

// vercheck: accept
SEC("socket")
__naked int l10_cast_void_read(void)
{
	asm volatile (
	"r1 = r10;"
	"r2 = 0;"
	"call %[bpf_rdonly_cast];"
	"r0 = *(u8 *)(r0 + 5);"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_rdonly_cast)
	: __clobber_all);
}

// vercheck: reject "R0 cannot write into rdonly_untrusted_mem"
SEC("socket")
__naked int l10_cast_void_write(void)
{
	asm volatile (
	"r1 = r10;"
	"r2 = 0;"
	"call %[bpf_rdonly_cast];"
	"r1 = 1;"
	"*(u8 *)(r0 + 5) = r1;"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_rdonly_cast)
	: __clobber_all);
}

/* Gives the object the kfunc's BTF. */
// vercheck: accept
SEC("socket")
int l10_cast_void_user(void *ctx)
{
	return bpf_rdonly_cast(ctx, 0) != 0;
}

char _license[] SEC("license") = "GPL";
