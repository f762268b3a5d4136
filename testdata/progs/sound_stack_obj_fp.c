#include "progs.h"

/* Stack objects (iterators, dynptrs) passed by a stack pointer: the slot is
 * (-off - 1) / 8 with C's truncating division, so the frame pointer itself
 * (off 0) names slot 0, the slot of fp-8, the same as fp-8 does for a
 * one-slot iterator. A two-slot dynptr needs off <= -16. */

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;

/* The well-formed use, which also gives the kfuncs their BTF. */
// vercheck: accept
SEC("tc")
int sound_stack_obj_ok(struct __sk_buff *ctx)
{
	struct bpf_iter_num it;
	struct bpf_dynptr d;

	bpf_iter_num_new(&it, 0, 1);
	bpf_iter_num_next(&it);
	bpf_iter_num_destroy(&it);
	bpf_dynptr_from_skb(ctx, 0, &d);
	return bpf_dynptr_size(&d);
}

/* Destroying through the frame pointer: a kernel with the iter-fp0 stable
 * fix finds no iterator at fp+0; one without it (6.18.44-fc-v973) rounds
 * the slot index towards zero and releases the fp-8 iterator. */
// vercheck: reject "expected an initialized iter_num as arg #0"
// vercheck: accept without iter-fp0
SEC("socket")
__naked int sound_stack_obj_iter_destroy_fp(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_num_new];"
		"r1 = r10;"
		"call %[bpf_iter_num_destroy];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_num_new), __imm(bpf_iter_num_destroy)
		: __clobber_all);
}

/* ... so destroying it again through fp-8 finds no iterator. */
// vercheck: reject "expected an initialized iter_num as arg #0"
SEC("socket")
__naked int sound_stack_obj_iter_destroy_twice(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_num_new];"
		"r1 = r10;"
		"call %[bpf_iter_num_destroy];"
		"r1 = r10;"
		"r1 += -8;"
		"call %[bpf_iter_num_destroy];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_num_new), __imm(bpf_iter_num_destroy)
		: __clobber_all);
}

/* Building one at the frame pointer: a kernel with the iter-fp0 stable fix
 * finds no slot at fp+0; one without it (6.18.44-fc-v973) builds it in the
 * slot of fp-8 and writes above the stack. */
// vercheck: reject "expected uninitialized iter_num as arg #0"
// vercheck: reject "invalid write to stack R1 off=0 size=8" without iter-fp0
SEC("socket")
__naked int sound_stack_obj_iter_new_fp(void)
{
	asm volatile(
		"r1 = r10;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_num_new];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_num_new)
		: __clobber_all);
}

/* Above the frame pointer there is no slot at all. */
// vercheck: reject "expected an initialized iter_num as arg #0"
SEC("socket")
__naked int sound_stack_obj_iter_above_fp(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_num_new];"
		"r1 = r10;"
		"r1 += 8;"
		"call %[bpf_iter_num_destroy];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_num_new), __imm(bpf_iter_num_destroy)
		: __clobber_all);
}

/* A dynptr cannot start at fp-8: its second slot would be above fp. */
// vercheck: reject "Dynptr has to be an uninitialized dynptr"
SEC("tc")
__naked int sound_stack_obj_dynptr_fp8(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -8;"
		"call %[bpf_dynptr_from_skb];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb)
		: __clobber_all);
}

/* A dynptr at fp-16 is not one at fp-8 or fp-24. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("tc")
__naked int sound_stack_obj_dynptr_shifted(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -24;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"call %[bpf_dynptr_size];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_size)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
