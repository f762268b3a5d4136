/* One load reached with read-only untrusted memory (bpf_rdonly_cast to no
 * type) on one path and another pointer on the other: save_aux_ptr_type
 * records one kind per instruction, and the load is read through a
 * probe only for untrusted memory. A stack or map value pointer on the
 * other path cannot share it ("same insn cannot be used with different
 * pointers"); other memory can, merged into a kind that keeps the probe
 * read (stable entry untrusted-mem-mismatch; without it both load). */
#include "progs.h"
char _license[] SEC("license") = "GPL";

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s26_um_rb SEC(".maps");

// vercheck: reject "same insn cannot be used with different pointers"
// vercheck: accept without untrusted-mem-mismatch
SEC("socket")
int s26_stack_and_untrusted(void *ctx)
{
	__u64 s = 42, v, *p = bpf_rdonly_cast(0, 0);

	asm volatile("r7 = %[p];"
		     "call %[bpf_get_prandom_u32];"
		     "if r0 == 0 goto +1;"
		     "r7 = %[s];"
		     "%[v] = *(u64 *)(r7 + 0);"
		     : [v] "=r"(v)
		     : [p] "r"(p), [s] "r"(&s), __imm(bpf_get_prandom_u32)
		     : "r0", "r1", "r2", "r3", "r4", "r5", "r7");
	return v;
}

// vercheck: accept
SEC("socket")
int s26_ringbuf_and_untrusted(void *ctx)
{
	__u64 v, *q = bpf_rdonly_cast(0, 0), *p = bpf_ringbuf_reserve(&s26_um_rb, 8, 0);

	if (!p)
		return 0;
	*p = 1;
	asm volatile("r7 = %[q];"
		     "call %[bpf_get_prandom_u32];"
		     "if r0 == 0 goto +1;"
		     "r7 = %[p];"
		     "%[v] = *(u64 *)(r7 + 0);"
		     : [v] "=r"(v)
		     : [p] "r"(p), [q] "r"(q), __imm(bpf_get_prandom_u32)
		     : "r0", "r1", "r2", "r3", "r4", "r5", "r7");
	bpf_ringbuf_discard(p, 0);
	return v;
}
