#include "progs.h"

/* Kfunc slices of a ringbuf dynptr (stablefix.SliceRingbufRef). This
 * machine's 6.18.44 gives the slice bpf_dynptr_slice(_rdwr) takes of a
 * ringbuf record the record's reference, as bpf_dynptr_data's slices have,
 * so that submitting or discarding the record ends the slice. 6.18.0 keeps
 * it: the "without" lines. */

extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
				   __u32 buffer__szk) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s12_slice_ringbuf_rb SEC(".maps");

/* A record of 8 bytes at fp-16 and its read-only slice in r0. */
#define S12_RB_SLICE(fn) \
	"r1 = %[s12_slice_ringbuf_rb] ll;" \
	"r2 = 8;" \
	"r3 = 0;" \
	"r4 = r10;" \
	"r4 += -16;" \
	"call %[bpf_ringbuf_reserve_dynptr];" \
	"r1 = r10;" \
	"r1 += -16;" \
	"r2 = 0;" \
	"r3 = 0;" \
	"r4 = 8;" \
	"call %[" #fn "];"

/* The well-formed use (it also gives the kfuncs their BTF): the slice
 * shows "ref_obj_id=2". */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int s12_slice_ringbuf_ok(struct __sk_buff *ctx)
{
	struct bpf_dynptr d;
	char *p, *q;
	int r = 0;

	bpf_ringbuf_reserve_dynptr(&s12_slice_ringbuf_rb, 8, 0, &d);
	p = bpf_dynptr_slice(&d, 0, NULL, 8);
	q = bpf_dynptr_slice_rdwr(&d, 0, NULL, 8);
	if (p && q)
		r = p[0] + q[1];
	bpf_ringbuf_submit_dynptr(&d, 0);
	return r;
}

/* A writable slice read after the record is discarded. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "R7 invalid mem access 'scalar'" without no-dynptr-slice-rdwr
// (A kernel that allows bpf_dynptr_slice_rdwr and lacks slice-ringbuf-ref: accept.)
SEC("tc")
__naked int s12_slice_ringbuf_after_discard(void)
{
	asm volatile(
		S12_RB_SLICE(bpf_dynptr_slice_rdwr)
		"r7 = r0;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"if r7 == 0 goto l0_%=;"
		"r1 = 1;"
		"*(u8 *)(r7 +0) = r1;"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s12_slice_ringbuf_rb), __imm(bpf_ringbuf_reserve_dynptr),
		  __imm(bpf_dynptr_slice_rdwr), __imm(bpf_ringbuf_discard_dynptr)
		: __clobber_all);
}

/* A copy spilled before the submit goes too. */
// vercheck: reject "R1 invalid mem access 'scalar'"
// vercheck: accept without slice-ringbuf-ref
SEC("tc")
__naked int s12_slice_ringbuf_spilled_submit(void)
{
	asm volatile(
		S12_RB_SLICE(bpf_dynptr_slice)
		"*(u64 *)(r10 -24) = r0;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit_dynptr];"
		"r1 = *(u64 *)(r10 -24);"
		"if r1 == 0 goto l0_%=;"
		"r0 = *(u8 *)(r1 +0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s12_slice_ringbuf_rb), __imm(bpf_ringbuf_reserve_dynptr),
		  __imm(bpf_dynptr_slice), __imm(bpf_ringbuf_submit_dynptr)
		: __clobber_all);
}

/* Used before the submit, the slice is fine. */
// vercheck: accept
SEC("tc")
__naked int s12_slice_ringbuf_before_submit(void)
{
	asm volatile(
		S12_RB_SLICE(bpf_dynptr_slice)
		"if r0 == 0 goto l0_%=;"
		"r1 = *(u8 *)(r0 +0);"
	"l0_%=:"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_submit_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s12_slice_ringbuf_rb), __imm(bpf_ringbuf_reserve_dynptr),
		  __imm(bpf_dynptr_slice), __imm(bpf_ringbuf_submit_dynptr)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
