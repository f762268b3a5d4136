#include "progs.h"

/* A load-acquire is emitted by the JIT as a plain load, with no exception
 * table entry: on kernels with stablefix.LoadAcqProbeMem (7.x's
 * is_load_acq_unsafe, this build) it refuses the pointers a plain load
 * reads through a fault-handling probe, an untrusted BTF pointer here,
 * and keeps trusted ones. The cgroup of cgroup_mkdir is trusted; its
 * first field (self.cgroup) is not. */

/* r2 = load_acquire((u64 *)(r1 + 0)) through the untrusted cgroup. */
// vercheck: reject "BPF_ATOMIC loads from R1 untrusted_ptr_ is not allowed"
// vercheck: accept without load-acq-probe-mem
SEC("tp_btf/cgroup_mkdir")
__naked int l12_load_acq_untrusted(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"r1 = *(u64 *)(r1 + 0);"
		".byte 0xdb, 0x12, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The same through the trusted cgroup itself. */
// vercheck: accept
SEC("tp_btf/cgroup_mkdir")
__naked int l12_load_acq_trusted(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		".byte 0xdb, 0x12, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* A plain load through the untrusted cgroup is fine (a probe read). */
// vercheck: accept
SEC("tp_btf/cgroup_mkdir")
__naked int l12_load_plain_untrusted(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"r1 = *(u64 *)(r1 + 0);"
		"r2 = *(u64 *)(r1 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
