#include "progs.h"

/* Three rules of the 6.18.44-fc-v1300 build, each a stable fix vercheck
 * probes (package stablefix): XDP programs may not call
 * bpf_xdp_adjust_meta (xdp-no-adjust-meta); the element an iterator
 * that is not RCU protected returns, a task_vma iterator's VMA here, is
 * untrusted (iter-next-untrusted); sock_ops reads rtt_min
 * only from full sockets (sockops-rtt-min-fullsock, a rewrite of 4
 * instructions instead of 2 and no verdict). */

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long vm_start;
} __attribute__((preserve_access_index));

struct bpf_iter_task_vma {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task, __u64 addr) __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s43_events SEC(".maps");

/* The data_meta area moved before the packet: refused where the build
 * offers XDP programs no bpf_xdp_adjust_meta. */
// vercheck: reject "program of this type cannot use helper bpf_xdp_adjust_meta#54"
// vercheck: accept without xdp-no-adjust-meta
SEC("xdp")
int s43_adjust_meta(struct xdp_md *ctx)
{
	void *data, *meta;

	if (bpf_xdp_adjust_meta(ctx, -4))
		return XDP_PASS;
	data = (void *)(long)ctx->data;
	meta = (void *)(long)ctx->data_meta;
	if (meta + 4 > data)
		return XDP_PASS;
	*(__u32 *)meta = 1;
	return XDP_PASS;
}

/* The call is never reached (r0 is a known constant), and the build's
 * call summary still counts the helper's two arguments: before it r1 and
 * r2 are live, not r1-r5 (the level-2 log's live registers). */
// vercheck: accept
SEC("xdp")
__naked int s43_adjust_meta_unreached(void)
{
	asm volatile("r6 = r1;"
		     "r0 = 0;"
		     "if r0 == 0 goto 1f;"
		     "r1 = r6;"
		     "r2 = 0;"
		     "call %[bpf_xdp_adjust_meta];"
		     "1: r0 = 2;"
		     "exit;"
		     :: __imm(bpf_xdp_adjust_meta) : __clobber_all);
}

/* A helper reads memory through a trusted pointer, never an untrusted
 * one: the VMA itself as bpf_ringbuf_output's data. */
// vercheck: reject "R2 type=untrusted_ptr_ expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
// vercheck: accept without iter-next-untrusted
SEC("tp_btf/task_newtask")
int s43_vma_output(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;

	bpf_iter_task_vma_new(&it, task, 0);
	vma = bpf_iter_task_vma_next(&it);
	if (vma)
		bpf_ringbuf_output(&s43_events, vma, sizeof(vma->vm_start), 0);
	bpf_iter_task_vma_destroy(&it);
	return 0;
}

/* Its fields are read either way (PROBE_MEM loads where untrusted); an
 * untrusted VMA is not known to be non-NULL, so the kernel explores the
 * NULL branch of the second test too. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int s43_vma_fields(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	unsigned long sum = 0;

	bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		if (vma)
			sum += vma->vm_start;
	}
	bpf_iter_task_vma_destroy(&it);
	return sum == 3;
}

/* rtt_min into another register and into the context's own: 4 and 9
 * instructions with the fullsock check, 2 and 2 without. */
// vercheck: accept
SEC("sockops")
__naked int s43_rtt_min(void)
{
	asm volatile("r2 = *(u32 *)(r1 + 92);"
		     "r1 = *(u32 *)(r1 + 92);"
		     "r0 = 1;"
		     "exit;" ::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
