#include "progs.h"
char _license[] SEC("license") = "GPL";

/* __kconfig values as libbpf fills them, found by session 35's loader
 * differential (the kernel's verdicts on each program loaded by libbpf 1.8
 * and by vercheck's loader). A y/n/m option read into a char takes the
 * letter (find_kcfg_type: any one-byte integer that is not a bool is
 * KCFG_CHAR; clang marks none as char), where vercheck stored 1; and
 * LINUX_HAS_BPF_COOKIE is libbpf's own, 1 on every kernel with
 * bpf_get_attach_cookie (5.15), where vercheck left it 0 (libbpf's
 * usdt.bpf.h branches on it). Each program reaches a NULL read only when
 * the value is libbpf's: vercheck accepted both. */
extern char CONFIG_BPF_SYSCALL __kconfig;
extern const _Bool LINUX_HAS_BPF_COOKIE __kconfig;

// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("socket")
int s35_kconfig_char_letter(void *ctx)
{
	if (CONFIG_BPF_SYSCALL == 'y')
		asm volatile ("r0 = 0; r0 = *(u64 *)(r0 + 0);" ::: "r0");
	return 0;
}

// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("socket")
int s35_kconfig_bpf_cookie(void *ctx)
{
	if (LINUX_HAS_BPF_COOKIE)
		asm volatile ("r0 = 0; r0 = *(u64 *)(r0 + 0);" ::: "r0");
	return 0;
}
