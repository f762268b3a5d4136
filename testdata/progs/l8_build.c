#include "progs.h"

/* Helpers a kernel build may or may not offer (helpers.Build): the live
 * kernel here is built without CONFIG_BPF_KPROBE_OVERRIDE and locked down
 * in integrity mode, so it refuses the first two; a build with the option,
 * or booted without lockdown, offers them (TestKernelBuildHelpers verifies
 * these programs against such configurations). */

/* bpf_override_return exists only with CONFIG_BPF_KPROBE_OVERRIDE. */
// vercheck: reject "program of this type cannot use helper bpf_override_return#58"
SEC("kprobe/do_nanosleep")
__naked int l8_override_return(void)
{
	asm volatile(
		"r2 = -1;"
		"call %[bpf_override_return];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_override_return)
		: __clobber_all);
}

/* bpf_probe_write_user is refused under any lockdown. */
// vercheck: reject "program of this type cannot use helper bpf_probe_write_user#36"
SEC("kprobe/do_nanosleep")
__naked int l8_probe_write_user(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"r2 = r10;"
		"r2 += -8;"
		"r3 = 8;"
		"r1 = 0;"
		"call %[bpf_probe_write_user];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_probe_write_user)
		: __clobber_all);
}

/* bpf_probe_read_kernel is refused under confidentiality lockdown only. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
__naked int l8_probe_read_kernel(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_probe_read_kernel];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_probe_read_kernel)
		: __clobber_all);
}
char _license[] SEC("license") = "GPL";
