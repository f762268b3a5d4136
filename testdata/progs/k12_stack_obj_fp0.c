#include "progs.h"

/* Stack objects passed at the frame pointer or above it. A kernel with the
 * iter-fp0 stable fix refuses any object at an offset >= 0 where it looks
 * the slot up (stack_slot_obj_get_spi: "cannot pass in KIND at an
 * offset=OFF"), constructors included. Without it the slot index
 * (-off - 1) / 8 rounds towards zero and fp+0 names the slot at fp-8: a
 * one-slot object (iter_num, irq flags) built there writes above the
 * stack, and one built at fp-8 is found through fp+0. Objects of two or
 * more slots, and offsets from 8 up, are refused either way. */

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

struct bpf_iter_bits {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;
extern int bpf_iter_bits_new(struct bpf_iter_bits *it, const __u64 *unsafe_ptr__ign, __u32 nr_words) __ksym;
extern int *bpf_iter_bits_next(struct bpf_iter_bits *it) __ksym;
extern void bpf_iter_bits_destroy(struct bpf_iter_bits *it) __ksym;
extern void bpf_local_irq_save(unsigned long *flags__irq_flag) __ksym;
extern void bpf_local_irq_restore(unsigned long *flags__irq_flag) __ksym;
extern int bpf_res_spin_lock_irqsave(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;
extern void bpf_res_spin_unlock_irqrestore(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;

struct k12_lock_elem {
	__u64 cnt;
	struct bpf_res_spin_lock lock;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct k12_lock_elem);
} k12_fp0_locks SEC(".maps");

/* The well-formed uses, which also give the kfuncs their BTF. */
// vercheck: accept
SEC("tc")
int k12_fp0_ok(struct __sk_buff *ctx)
{
	struct bpf_iter_num it;
	struct bpf_iter_bits bits;
	struct bpf_dynptr d;
	unsigned long flags;
	__u64 word = 3;
	__u32 key = 0;
	struct k12_lock_elem *e;

	bpf_iter_num_new(&it, 0, 1);
	bpf_iter_num_next(&it);
	bpf_iter_num_destroy(&it);
	bpf_iter_bits_new(&bits, &word, 1);
	bpf_iter_bits_next(&bits);
	bpf_iter_bits_destroy(&bits);
	bpf_local_irq_save(&flags);
	bpf_local_irq_restore(&flags);
	e = bpf_map_lookup_elem(&k12_fp0_locks, &key);
	if (e && !bpf_res_spin_lock_irqsave(&e->lock, &flags))
		bpf_res_spin_unlock_irqrestore(&e->lock, &flags);
	bpf_dynptr_from_skb(ctx, 0, &d);
	return bpf_dynptr_size(&d);
}

/* A one-slot iterator built at fp+0. */
// vercheck: reject "expected uninitialized iter_num as arg #0"
// vercheck: reject "invalid write to stack R1 off=0 size=8" without iter-fp0
SEC("socket")
__naked int k12_fp0_iter_new(void)
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

/* fp+0 reached through a register offset and a constant: the same. */
// vercheck: reject "expected uninitialized iter_num as arg #0"
// vercheck: reject "invalid write to stack R1 off=0 size=8" without iter-fp0
SEC("socket")
__naked int k12_fp0_iter_new_sum(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -16;"
		"r1 += 16;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_num_new];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_num_new)
		: __clobber_all);
}

/* fp+8 is refused with or without the fix. */
// vercheck: reject "expected uninitialized iter_num as arg #0"
SEC("socket")
__naked int k12_fp0_iter_new_fp8(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += 8;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_num_new];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_num_new)
		: __clobber_all);
}

/* next through fp+0 of an iterator built at fp-8. */
// vercheck: reject "expected an initialized iter_num as arg #0"
// vercheck: reject "Unreleased reference id=1 alloc_insn=4" without iter-fp0
SEC("socket")
__naked int k12_fp0_iter_next(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_num_new];"
		"r1 = r10;"
		"call %[bpf_iter_num_next];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_num_new), __imm(bpf_iter_num_next)
		: __clobber_all);
}

/* A two-slot iterator at fp+0 or fp-8 is refused either way. */
// vercheck: reject "expected uninitialized iter_bits as arg #0"
SEC("socket")
__naked int k12_fp0_bits_new(void)
{
	asm volatile(
		"r1 = r10;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_bits_new];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_bits_new)
		: __clobber_all);
}

// vercheck: reject "expected an initialized iter_bits as arg #0"
SEC("socket")
__naked int k12_fp0_bits_destroy(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 1;"
		"call %[bpf_iter_bits_new];"
		"r1 = r10;"
		"r1 += -8;"
		"call %[bpf_iter_bits_destroy];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_iter_bits_new), __imm(bpf_iter_bits_destroy)
		: __clobber_all);
}

/* irq flags saved at fp+0. */
// vercheck: reject "expected uninitialized irq flag as arg#0"
// vercheck: reject "invalid write to stack R1 off=0 size=8" without iter-fp0
SEC("tc")
__naked int k12_fp0_irq_save(void)
{
	asm volatile(
		"r1 = r10;"
		"call %[bpf_local_irq_save];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_local_irq_save)
		: __clobber_all);
}

/* irq flags saved at fp-8, restored through fp+0. */
// vercheck: reject "expected an initialized irq flag as arg#0"
// vercheck: accept without iter-fp0
SEC("tc")
__naked int k12_fp0_irq_restore(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"call %[bpf_local_irq_save];"
		"r1 = r10;"
		"call %[bpf_local_irq_restore];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_local_irq_save), __imm(bpf_local_irq_restore)
		: __clobber_all);
}

/* The flags of a resilient lock taken with interrupts off, at fp+0. */
// vercheck: reject "expected uninitialized irq flag as arg#1"
// vercheck: reject "invalid write to stack R2 off=0 size=8" without iter-fp0
SEC("tc")
__naked int k12_fp0_res_irqsave(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[k12_fp0_locks] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r1 = r0;"
		"r1 += 8;"
		"r2 = r10;"
		"call %[bpf_res_spin_lock_irqsave];"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_res_spin_lock_irqsave), __imm(bpf_map_lookup_elem), __imm_addr(k12_fp0_locks)
		: __clobber_all);
}

/* ... and restored through fp+0 after being saved at fp-8. */
// vercheck: reject "expected an initialized irq flag as arg#1"
// vercheck: accept without iter-fp0
SEC("tc")
__naked int k12_fp0_res_irqrestore(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 16) = r1;"
		"r2 = r10;"
		"r2 += -16;"
		"r1 = %[k12_fp0_locks] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto 1f;"
		"r6 = r0;"
		"r6 += 8;"
		"r1 = r6;"
		"r2 = r10;"
		"r2 += -8;"
		"call %[bpf_res_spin_lock_irqsave];"
		"if r0 != 0 goto 1f;"
		"r1 = r6;"
		"r2 = r10;"
		"call %[bpf_res_spin_unlock_irqrestore];"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_res_spin_lock_irqsave), __imm(bpf_res_spin_unlock_irqrestore),
		  __imm(bpf_map_lookup_elem), __imm_addr(k12_fp0_locks)
		: __clobber_all);
}

/* A dynptr at fp+0: two slots never fit. */
// vercheck: reject "Dynptr has to be an uninitialized dynptr"
SEC("tc")
__naked int k12_fp0_dynptr(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"call %[bpf_dynptr_from_skb];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
