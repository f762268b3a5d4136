#include "progs.h"

/* Load-acquire (BPF_ATOMIC | BPF_LOAD_ACQ) and the pointer kinds that take
 * no atomics (atomic_ptr_type_ok: context, packet, flow keys, sockets). A
 * kernel with stablefix.AtomicLoadSrcFirst (this machine's
 * 6.18.44-fc-v1045, and 7.x's check_atomic_load) checks that the source
 * register is readable, then its kind, and only then the load (the
 * destination's number and writability, the access): its message comes
 * first. 6.18.0 (the "without" verdicts) tests the kind after the load,
 * on the register the load left.
 * Store-release and the read-modify-write atomics are unchanged: they test
 * the base after the access, or before it, as 6.18.0 did. s7_atomic_sock.c
 * has loads whose destination is their base. */

char _license[] SEC("license") = "GPL";

/* w2 = load_acquire((u32 *)(r1 + 3)): the context is refused before the
 * misaligned access is seen. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: reject "misaligned context access off 0+0+3 size 4" without atomic-load-src-first
SEC("socket")
__naked int a12_acquire_ctx_misaligned(void)
{
	asm volatile(
		".byte 0xc3, 0x12, 0x03, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* r1 = load_acquire((u64 *)(r1 + 0)): the context is refused before the
 * 8-byte read of len is. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: reject "invalid bpf_context access off=0 size=8" without atomic-load-src-first
SEC("socket")
__naked int a12_acquire_ctx_bad_size(void)
{
	asm volatile(
		".byte 0xdb, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* w1 = load_acquire((u16 *)(r1 + 0)): a valid context read into the base,
 * refused for the context; without the fix tested on the loaded scalar. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: accept without atomic-load-src-first
SEC("socket")
__naked int a12_acquire_ctx_half_into_base(void)
{
	asm volatile(
		".byte 0xcb, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* r10 = load_acquire((u32 *)(r1 + 0)): the context is refused before the
 * destination is found read-only. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: reject "frame pointer is read only" without atomic-load-src-first
SEC("socket")
__naked int a12_acquire_ctx_into_fp(void)
{
	asm volatile(
		".byte 0xc3, 0x1a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* r11 = load_acquire((u32 *)(r1 + 0)): before the destination's number. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: reject "R11 is invalid" without atomic-load-src-first
SEC("socket")
__naked int a12_acquire_ctx_into_r11(void)
{
	asm volatile(
		".byte 0xc3, 0x1b, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The source's number and initialisation are checked first. */
// vercheck: reject "R11 is invalid"
SEC("socket")
__naked int a12_acquire_from_r11(void)
{
	asm volatile(
		".byte 0xc3, 0xb2, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "R3 !read_ok"
SEC("socket")
__naked int a12_acquire_from_uninit(void)
{
	asm volatile(
		".byte 0xc3, 0x32, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* w2 = load_acquire((u32 *)(r2 + 0)) from unchecked packet data: the
 * packet is refused before the access. */
// vercheck: reject "BPF_ATOMIC loads from R2 pkt is not allowed"
// vercheck: reject "misaligned packet access off 2+0+0+0 size 4" without atomic-load-src-first
SEC("tc")
__naked int a12_acquire_pkt_unchecked(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + %[data]);"
		".byte 0xc3, 0x22, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		:
		: __imm_const(data, offsetof(struct __sk_buff, data))
		: __clobber_all);
}

/* r1 = load_acquire((u64 *)(r1 + 0)) from the stack into the base: fine,
 * with the fix or without. */
// vercheck: accept
SEC("socket")
__naked int a12_acquire_stack_into_base(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u64 *)(r10 - 8) = r1;"
		"r1 = r10;"
		"r1 += -8;"
		".byte 0xdb, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = r1;"
		"exit;"
		::: __clobber_all);
}

/* r1 = load_acquire((u64 *)(r1 + 0)) from the stack, where the context
 * is spilled: the base is a stack pointer, accepted. Without the fix the
 * test sees the loaded context in r1 and refuses it: the fix cuts both
 * ways. */
// vercheck: accept
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed" without atomic-load-src-first
SEC("socket")
__naked int a12_acquire_spilled_ctx_into_base(void)
{
	asm volatile(
		"*(u64 *)(r10 - 8) = r1;"
		"r1 = r10;"
		"r1 += -8;"
		".byte 0xdb, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = *(u32 *)(r1 + 0);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* store_release((u32 *)(r1 + 3), w2): the store is checked first, with
 * the fix or without. */
// vercheck: reject "misaligned context access off 0+0+3 size 4"
SEC("socket")
__naked int a12_release_ctx_misaligned(void)
{
	asm volatile(
		"r2 = 0;"
		".byte 0xc3, 0x21, 0x03, 0x00, 0x10, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* store_release((u32 *)(r1 + 0), w2) with r2 never written. */
// vercheck: reject "R2 !read_ok"
SEC("socket")
__naked int a12_release_ctx_uninit_value(void)
{
	asm volatile(
		".byte 0xc3, 0x21, 0x00, 0x00, 0x10, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* w1 = atomic_fetch_add((u32 *)(r1 + 0), w1) on the context: refused
 * before the access, as 6.18.0 does. */
// vercheck: reject "BPF_ATOMIC stores into R1 ctx is not allowed"
SEC("socket")
__naked int a12_fetch_add_ctx_into_base(void)
{
	asm volatile(
		".byte 0xc3, 0x11, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* r0 = cmpxchg((u64 *)(r0 + 0), r0, r2) with r0 the context. */
// vercheck: reject "BPF_ATOMIC stores into R0 ctx is not allowed"
SEC("socket")
__naked int a12_cmpxchg_ctx_r0(void)
{
	asm volatile(
		"r0 = r1;"
		"r2 = 0;"
		".byte 0xdb, 0x20, 0x00, 0x00, 0xf1, 0x00, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}
