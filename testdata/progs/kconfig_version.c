#include "progs.h"

/* extern __kconfig variables live in a read-only map the loader fills from
 * the running kernel before the program is verified, so the verifier sees
 * constants. On any kernel with BPF the version is past 4.0, so the array
 * index below is only ever 0; were the value unknown, the index could be
 * out of range and the program would be rejected. */
extern unsigned int LINUX_KERNEL_VERSION __kconfig;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} kv_counts SEC(".maps");

// vercheck: accept
SEC("socket")
int kconfig_version(struct __sk_buff *skb)
{
	__u64 buf[2] = {1, 2};
	__u32 idx = LINUX_KERNEL_VERSION < (4 << 16) ? 7 : 0;
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&kv_counts, &key);

	if (v)
		*v += buf[idx & 7];
	return 0;
}
