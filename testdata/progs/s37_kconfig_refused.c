#include "progs.h"
char _license[] SEC("license") = "GPL";

/* A strong extern __kconfig variable that the kernel's configuration does
 * not set: libbpf refuses the whole object ("extern '...' (strong): not
 * resolved", ESRCH) before the kernel sees a program, and so does
 * cilium/ebpf. vercheck stored zero and accepted both programs, even the
 * one that never reads the variable (TestKconfigRefused). */
extern int CONFIG_VERCHECK_NOT_A_KERNEL_OPTION __kconfig;

SEC("socket")
int s37_kconfig_strong_missing(void *ctx)
{
	return CONFIG_VERCHECK_NOT_A_KERNEL_OPTION ? 1 : 0;
}

SEC("socket")
int s37_kconfig_unread(void *ctx)
{
	return 0;
}
