#include "progs.h"

/* On the path where bpf_res_spin_lock (or _irqsave) failed, r0 is an
 * error in [-4095, -1] in its low 32 bits only on this machine's kernel
 * (a build change of 6.18.44-fc-v1045, not upstream: __mark_reg_s32_range
 * leaves the upper half unknown). A 64-bit signed test of r0 then does
 * not tell the two paths apart; 6.18.0 made r0 the 64-bit [-4095, -1]
 * (stablefix.S32RangeLowHalf). */

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock(struct bpf_res_spin_lock *lock) __ksym;
extern void bpf_res_spin_unlock(struct bpf_res_spin_lock *lock) __ksym;
extern int bpf_res_spin_lock_irqsave(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;
extern void bpf_res_spin_unlock_irqrestore(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;

struct g12_errno_elem {
	struct bpf_res_spin_lock lock;
	__u32 pad;
};

/* A map, not a .data global: cilium/ebpf cannot map the memory of a
 * section that holds a lock. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct g12_errno_elem);
} g12_errno_locks SEC(".maps");

/* r6 = the element's lock, or exit. */
#define G12_LOOKUP_R6							\
	"*(u32 *)(r10 - 4) = 0;"					\
	"r2 = r10;"							\
	"r2 += -4;"							\
	"r1 = %[g12_errno_locks] ll;"					\
	"call %[bpf_map_lookup_elem];"					\
	"if r0 != 0 goto 9f;"						\
	"exit;"								\
	"9:"								\
	"r6 = r0;"

/* "if r0 s< 0": the failure path falls through too and releases a lock
 * it does not hold. */
// vercheck: reject "bpf_res_spin_unlock without taking a lock"
// vercheck: accept without s32-range-low-half
SEC("tc")
__naked int g12_res_lock_s64_test(void)
{
	asm volatile (
	G12_LOOKUP_R6
	"r1 = r6;"
	"call %[bpf_res_spin_lock];"
	"if r0 s< 0 goto 1f;"
	"r1 = r6;"
	"call %[bpf_res_spin_unlock];"
	"1:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_res_spin_lock), __imm(bpf_res_spin_unlock), __imm_addr(g12_errno_locks), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

/* The same with the irqsave form (the lock is checked before the irq
 * flag). */
// vercheck: reject "bpf_res_spin_unlock without taking a lock"
// vercheck: accept without s32-range-low-half
SEC("tc")
__naked int g12_res_lock_irq_s64_test(void)
{
	asm volatile (
	G12_LOOKUP_R6
	"r1 = r6;"
	"r2 = r10;"
	"r2 += -16;"
	"call %[bpf_res_spin_lock_irqsave];"
	"if r0 s< 0 goto 1f;"
	"r1 = r6;"
	"r2 = r10;"
	"r2 += -16;"
	"call %[bpf_res_spin_unlock_irqrestore];"
	"1:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_res_spin_lock_irqsave), __imm(bpf_res_spin_unlock_irqrestore),
	   __imm_addr(g12_errno_locks), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

/* A 32-bit test is exact either way. */
// vercheck: accept
SEC("tc")
__naked int g12_res_lock_s32_test(void)
{
	asm volatile (
	G12_LOOKUP_R6
	"r1 = r6;"
	"call %[bpf_res_spin_lock];"
	"if w0 s< 0 goto 1f;"
	"r1 = r6;"
	"call %[bpf_res_spin_unlock];"
	"1:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_res_spin_lock), __imm(bpf_res_spin_unlock), __imm_addr(g12_errno_locks), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

/* The error as a 64-bit number: an unknown upper half, so r0 >> 32 may
 * be anything and indexes a 4-byte stack buffer out of bounds; 6.18.0
 * knows it is 0xffffffff and the mask below keeps it in. */
// vercheck: reject "invalid variable-offset read from stack R1"
// vercheck: accept without s32-range-low-half
SEC("tc")
__naked int g12_res_lock_upper_half(void)
{
	asm volatile (
	G12_LOOKUP_R6
	"r1 = r6;"
	"call %[bpf_res_spin_lock];"
	"if w0 == 0 goto 1f;"
	"r0 >>= 32;"
	"r0 += 1;"
	"r0 &= 0xff;"
	"*(u32 *)(r10 - 16) = 0;"
	"r1 = r10;"
	"r1 += -16;"
	"r1 += r0;"
	"r0 = *(u8 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	"1:"
	"r1 = r6;"
	"call %[bpf_res_spin_unlock];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_res_spin_lock), __imm(bpf_res_spin_unlock), __imm_addr(g12_errno_locks), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

/* In C, which also gives the object the kfuncs' BTF. */
// vercheck: accept
SEC("tc")
int g12_res_lock_c(struct __sk_buff *skb)
{
	struct g12_errno_elem *e;
	unsigned long flags;
	__u32 key = 0;

	e = bpf_map_lookup_elem(&g12_errno_locks, &key);
	if (!e)
		return 0;
	if (!bpf_res_spin_lock(&e->lock))
		bpf_res_spin_unlock(&e->lock);
	if (!bpf_res_spin_lock_irqsave(&e->lock, &flags))
		bpf_res_spin_unlock_irqrestore(&e->lock, &flags);
	return 0;
}

char _license[] SEC("license") = "GPL";
