#include "progs.h"

/* check_cfg marks a subprogram that holds a call to a helper moving
 * packet data (bpf_helper_changes_pkt_data), and everything calling it,
 * and check_func_call invalidates the caller's packet pointers after a
 * call of such a global function, verified apart. On the 6.18.44 builds
 * that list holds bpf_dynptr_write, whatever the dynptr's kind and even
 * where the call is never reached (the summary is made before any path
 * is walked). vercheck left bpf_dynptr_write out of the summary and let
 * the caller read the packet through its old pointer: a false accept
 * found by TestPacketInvalidationLiveKernel. */

char _license[] SEC("license") = "GPL";

/* A global function whose bpf_dynptr_write is never reached. */
__noinline int s18_gsub_write(struct __sk_buff *skb)
{
	int r;

	asm volatile(
		"r0 = 0;"
		"if r0 == 0 goto 1f;"
		"call %[bpf_dynptr_write];"
		"1:"
		"%[r] = 0;"
		: [r] "=r"(r)
		: __imm(bpf_dynptr_write)
		: "r0", "r1", "r2", "r3", "r4", "r5");
	return r;
}

/* The same without the call. */
__noinline int s18_gsub_plain(struct __sk_buff *skb)
{
	int r;

	asm volatile("%[r] = 0;" : [r] "=r"(r));
	return r;
}

/* The packet pointer checked before the call is gone after it. */
// vercheck: reject "R7 invalid mem access 'scalar'"
SEC("tc")
__naked int s18_global_write_then_read(void)
{
	asm volatile(
		"r6 = r1;"
		"r7 = *(u32 *)(r6 + %[data]);"
		"r8 = *(u32 *)(r6 + %[data_end]);"
		"r0 = r7;"
		"r0 += 1;"
		"if r0 > r8 goto 1f;"
		"r1 = r6;"
		"call s18_gsub_write;"
		"r0 = *(u8 *)(r7 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		:: __imm_const(data, __builtin_offsetof(struct __sk_buff, data)),
		   __imm_const(data_end, __builtin_offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}

/* The control: a global function that changes nothing. */
// vercheck: accept
SEC("tc")
__naked int s18_global_plain_then_read(void)
{
	asm volatile(
		"r6 = r1;"
		"r7 = *(u32 *)(r6 + %[data]);"
		"r8 = *(u32 *)(r6 + %[data_end]);"
		"r0 = r7;"
		"r0 += 1;"
		"if r0 > r8 goto 1f;"
		"r1 = r6;"
		"call s18_gsub_plain;"
		"r0 = *(u8 *)(r7 + 0);"
		"1:"
		"r0 = 0;"
		"exit;"
		:: __imm_const(data, __builtin_offsetof(struct __sk_buff, data)),
		   __imm_const(data_end, __builtin_offsetof(struct __sk_buff, data_end))
		: __clobber_all);
}
