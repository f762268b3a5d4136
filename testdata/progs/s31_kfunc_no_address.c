// A kfunc call of a kernel function that BTF describes but kallsyms does
// not list: an __exit function of built-in code, discarded after boot.
// add_kfunc_call looks every called function's address up when the
// program is loaded, before any instruction is simulated, so the program
// is refused even though the call is never reached ("cannot find address
// for kernel function exit_elf_binfmt"); a function with an address that
// no kfunc set registers is refused only where the call is reached
// ("calling kernel function crypto_has_alg is not allowed"). Found as a
// message difference of mutation fuzzing (a BTF id pointed at br_deinit).
#include "progs.h"
char _license[] SEC("license") = "GPL";

extern void exit_elf_binfmt(void) __ksym;

// vercheck: reject "cannot find address for kernel function exit_elf_binfmt"
SEC("tc")
int s31_exit_function(struct __sk_buff *skb)
{
	if (skb->len > 0x7fffffff)
		exit_elf_binfmt();
	return 0;
}

extern int crypto_has_alg(const char *name, __u32 type, __u32 mask) __ksym;

// vercheck: reject "calling kernel function crypto_has_alg is not allowed"
SEC("tc")
int s31_unregistered_function(struct __sk_buff *skb)
{
	return crypto_has_alg(0, 0, 0);
}
