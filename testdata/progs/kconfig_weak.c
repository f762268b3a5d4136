#include "progs.h"

/* A weak extern __kconfig variable that the running kernel's configuration
 * lacks is zero, as libbpf leaves it (a strong one would fail the load); a
 * set one has its value. cilium/ebpf refuses weak externs, so the loader
 * binds them as global before it reads the object and fills them itself.
 * Both programs index a two-element stack array with 7 or 0 by the value. */
extern _Bool CONFIG_BPF_SYSCALL __kconfig __weak;
extern int CONFIG_VERCHECK_NOT_A_KERNEL_OPTION __kconfig __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} kw_counts SEC(".maps");

static __always_inline int add_at(__u32 idx)
{
	__u64 buf[2] = {1, 2};
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&kw_counts, &key);

	if (v)
		*v += buf[idx & 7];
	return 0;
}

// vercheck: accept
SEC("socket")
int kconfig_weak_missing(struct __sk_buff *skb)
{
	return add_at(CONFIG_VERCHECK_NOT_A_KERNEL_OPTION ? 7 : 0);
}

// vercheck: reject "R2 min value is outside of the allowed memory range"
SEC("socket")
int kconfig_weak_set(struct __sk_buff *skb)
{
	return add_at(CONFIG_BPF_SYSCALL ? 7 : 0);
}
