#include "progs.h"

/* Typeless ksyms: the loader gives a load of their address the symbol's
 * kallsyms address, as libbpf and cilium/ebpf do, or 0 for a weak symbol
 * the kernel lacks. The verifier sees a known constant, so a branch on
 * whether the symbol exists is decided by that address: code under a
 * present symbol is checked, code under a missing one is dead. */

extern const void bpf_map_put __ksym __weak;
extern const void pc_no_such_symbol __ksym __weak;

// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("tc")
int pc_ksym_typeless_present(struct __sk_buff *skb)
{
	if (&bpf_map_put)
		return *(volatile char *)&bpf_map_put;
	return 0;
}

// vercheck: accept
SEC("tc")
int pc_ksym_typeless_missing(struct __sk_buff *skb)
{
	if (&pc_no_such_symbol)
		return *(volatile char *)&pc_no_such_symbol;
	return 0;
}

char _license[] SEC("license") = "GPL";
