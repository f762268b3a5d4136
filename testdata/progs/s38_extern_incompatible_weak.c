#include "progs.h"
char _license[] SEC("license") = "GPL";

/* A weak kfunc declared with another prototype than the kernel's (6.18's
 * bpf_strlen takes one string, declared here with a length too): libbpf
 * leaves it unresolved (bpf_core_types_are_compat fails, the extern is
 * weak), its address is 0 and its calls poisoned, so the call a
 * bpf_ksym_exists-style test guards is dead code the kernel never reaches
 * (s38_extern_incompatible.c has the strong forms libbpf refuses). */
extern int bpf_strlen(const char *s, __u32 s__sz) __ksym __weak;

// vercheck: accept
SEC("tc")
int s38_kfunc_incompatible_weak(struct __sk_buff *skb)
{
	char s[4] = "abc";

	if (!bpf_strlen)
		return 0;
	return bpf_strlen(s, 3);
}
