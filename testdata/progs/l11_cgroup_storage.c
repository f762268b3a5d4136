#include "progs.h"

/* A program may name one cgroup storage map of each kind, shared and
 * per-CPU: the cgroup's storage is allocated for that one map when the
 * program is attached (__add_used_map's bpf_cgroup_storage_assign refuses
 * a second map of a kind with EBUSY, for every ld_imm64, reached or not). */

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, __u64);
} l11_cg_a SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, __u64);
} l11_cg_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, __u64);
} l11_cg_pcpu SEC(".maps");

/* One shared map, named twice, and one per-CPU map. */
// vercheck: accept
SEC("cgroup_skb/egress")
int l11_cg_one_of_each(struct __sk_buff *skb)
{
	__u64 *a = bpf_get_local_storage(&l11_cg_a, 0);
	__u64 *p = bpf_get_local_storage(&l11_cg_pcpu, 0);

	*a += 1;
	*p += 1;
	a = bpf_get_local_storage(&l11_cg_a, 0);
	return *a & 1;
}

/* Two shared maps. */
// vercheck: reject "only one cgroup storage of each type is allowed"
SEC("cgroup_skb/egress")
int l11_cg_two_shared(struct __sk_buff *skb)
{
	__u64 *a = bpf_get_local_storage(&l11_cg_a, 0);
	__u64 *b = bpf_get_local_storage(&l11_cg_b, 0);

	return (*a + *b) & 1;
}

/* The second map is named only on a path never taken. */
// vercheck: reject "only one cgroup storage of each type is allowed"
SEC("cgroup_skb/egress")
__naked int l11_cg_second_dead(void)
{
	asm volatile(
	"r1 = %[l11_cg_a] ll;"
	"r0 = 1;"
	"exit;"
	"r1 = %[l11_cg_b] ll;"
	"r0 = 1;"
	"exit;"
	:
	: __imm_addr(l11_cg_a), __imm_addr(l11_cg_b)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
