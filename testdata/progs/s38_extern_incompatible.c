#include "progs.h"
char _license[] SEC("license") = "GPL";

/* Externs the kernel has with another type than the object declares.
 * libbpf compares the two (bpf_core_types_are_compat) and refuses the
 * object with EINVAL for a strong kfunc ("extern (func ksym) 'bpf_strstr':
 * func_proto [...] incompatible with vmlinux") and for a typed ksym
 * variable, weak or strong ("extern (var ksym) 'runqueues': incompatible
 * types"), every program of it, whichever program names the extern; a weak
 * kfunc stays unresolved instead (s38_extern_incompatible_weak.c).
 * vercheck said "unsupported"; it now rejects the programs that name the
 * extern (TestExternIncompatible; libbpf refuses the others too, cilium/ebpf
 * does not). 6.18's bpf_strstr takes two strings (declared here with four
 * arguments) and runqueues is a per-CPU struct rq. */
extern int bpf_strstr(const char *str, __u32 str__sz, const char *substr, __u32 substr__sz) __ksym;
extern const int runqueues __ksym;

SEC("tc")
int s38_kfunc_incompatible(struct __sk_buff *skb)
{
	char s[4] = "abc", sub[2] = "b";

	return bpf_strstr(s, 3, sub, 1);
}

SEC("tc")
int s38_ksym_incompatible(struct __sk_buff *skb)
{
	return *(const int *)bpf_this_cpu_ptr(&runqueues) != 0;
}
