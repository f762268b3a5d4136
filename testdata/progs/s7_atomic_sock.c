// Load-acquire and sockets (atomic_ptr_type_ok): a kernel with
// stablefix.AtomicLoadSrcFirst (this machine's 6.18.44-fc-v1045, and 7.x)
// tests the base register's type before the load; 6.18.0 (the "without
// atomic-load-src-first" verdicts) tests it after check_load_mem, so a
// load whose destination is its base is tested on the loaded value. And
// type_is_sk_pointer compares the whole type, so a maybe-NULL socket
// passes the test (the load itself refuses one first).
#include "progs.h"

char _license[] SEC("license") = "GPL";

/* r1 = load_acquire((u64 *)(r1 + 48)): the base is the context, refused.
 * Without the fix the migrating socket, maybe NULL, replaces the context
 * in r1 before the type test, which lets it pass. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: accept without atomic-load-src-first
SEC("sk_reuseport/migrate")
__naked int s7_acquire_sock_or_null_into_base(void)
{
	asm volatile(
		".byte 0xdb, 0x11, 0x30, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* The load through the maybe-NULL socket fails first. */
// vercheck: reject "R1 invalid mem access 'sock_common_or_null'"
SEC("sk_reuseport/migrate")
__naked int s7_acquire_through_sock_or_null(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 48);"
		/* w2 = load_acquire((u32 *)(r1 + 4)) */
		".byte 0xc3, 0x12, 0x04, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* Checked, the socket reads like a sock_common, but takes no atomic. */
// vercheck: reject "BPF_ATOMIC loads from R1 sock_common is not allowed"
SEC("sk_reuseport/migrate")
__naked int s7_acquire_through_sock(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 48);"
		"if r1 == 0 goto 1f;"
		/* w2 = load_acquire((u32 *)(r1 + 4)) */
		".byte 0xc3, 0x12, 0x04, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* w1 = load_acquire((u32 *)(r1 + 0)): the context is refused. Without the
 * fix it is tested after the load, when r1 already holds the loaded
 * length. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: accept without atomic-load-src-first
SEC("socket")
__naked int s7_acquire_ctx_into_base(void)
{
	asm volatile(
		".byte 0xc3, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* r1 = load_acquire((u64 *)(r1 + 168)): the context is refused. Without
 * the fix the skb's socket, maybe NULL, replaces the context, and reads
 * like a plain socket once checked. */
// vercheck: reject "BPF_ATOMIC loads from R1 ctx is not allowed"
// vercheck: accept without atomic-load-src-first
SEC("tc")
__naked int s7_acquire_skb_sk_into_base(void)
{
	asm volatile(
		".byte 0xdb, 0x11, 0xa8, 0x00, 0x00, 0x01, 0x00, 0x00;"
		"if r1 == 0 goto 1f;"
		"r0 = *(u32 *)(r1 + 4);"
		"1:"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}
