// References a helper call holds and releases (check_func_arg,
// check_helper_call).
//
// One referenced argument per helper call: a second argument with a
// ref_obj_id, even the same one, is refused whatever the helper
// ("more than one arg with ref_obj_id R%d %u %u", logged without a
// newline); the destination of bpf_kptr_xchg aside.
//
// A release of a reference already gone: comparing a maybe-NULL socket or
// ring buffer record (r0, copied to r7) with a non-NULL pointer proves
// only r0 non-NULL on the equal edge; "if r7 == 0" then drops the
// reference by id on a path that cannot happen, and r0 keeps its
// ref_obj_id. Releasing r0 there is "func NAME#ID reference has not been
// acquired before"; r0 stays usable, and nothing leaks.
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s25_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u64);
	__type(value, __u64);
} s25_hm SEC(".maps");

#define S25_ARGS __imm(bpf_sk_lookup_tcp), __imm(bpf_sk_lookup_udp), __imm(bpf_sk_release), \
	__imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm(bpf_ringbuf_discard), \
	__imm_addr(s25_rb), __imm(bpf_csum_diff), __imm(bpf_map_update_elem), __imm_addr(s25_hm), \
	__imm(bpf_tcp_check_syncookie), __imm(bpf_ringbuf_output), __imm(bpf_map_lookup_elem), \
	__imm(bpf_sk_fullsock), __imm(bpf_tcp_sock)
#define RES(sz) "r1 = %[s25_rb] ll; r2 = " #sz "; r3 = 0; call %[bpf_ringbuf_reserve];"
#define LOOKUP(fn) \
	"r2 = 0;" "*(u64 *)(r10 - 40) = r2;" "*(u64 *)(r10 - 32) = r2;" \
	"*(u64 *)(r10 - 24) = r2;" "*(u64 *)(r10 - 16) = r2;" "*(u32 *)(r10 - 8) = r2;" \
	"r2 = r10;" "r2 += -40;" "r3 = 36;" "r4 = -1;" "r5 = 0;" "call %[" #fn "];"
/* r9 = a TCP socket, r0 and r7 = a UDP lookup; at 7: r0 == r9 proved r0
 * non-NULL, and "r7 == 0" dropped its reference. */
#define SK_HEAD "r6 = r1;" LOOKUP(bpf_sk_lookup_tcp) "if r0 == 0 goto 9f; r9 = r0; r1 = r6;" LOOKUP(bpf_sk_lookup_udp) \
	"r7 = r0; if r0 != r9 goto 8f; if r7 == 0 goto 7f; r1 = r7; call %[bpf_sk_release]; r1 = r9; call %[bpf_sk_release]; r0 = 0; exit;" \
	"8: r1 = r9; call %[bpf_sk_release]; if r7 == 0 goto 9f; r1 = r7; call %[bpf_sk_release]; 9: r0 = 0; exit; 7:"
/* The same with two ring buffer records. */
#define RB_HEAD RES(8) "r9 = r0; if r0 == 0 goto 9f;" RES(8) \
	"r7 = r0; r8 = r0; if r0 != r9 goto 8f; if r7 == 0 goto 7f; r1 = r7; r2 = 0; call %[bpf_ringbuf_discard]; r1 = r9; r2 = 0; call %[bpf_ringbuf_discard]; r0 = 0; exit;" \
	"8: r1 = r9; r2 = 0; call %[bpf_ringbuf_discard]; if r7 == 0 goto 9f; r1 = r7; r2 = 0; call %[bpf_ringbuf_discard]; 9: r0 = 0; exit; 7:"

// vercheck: reject "more than one arg with ref_obj_id R3 2 2"
SEC("tc")
__naked int s25_two_ref_csum_same(void)
{
	asm volatile(RES(8) "if r0 == 0 goto 1f; r6 = r0; r1 = 0; *(u64*)(r6+0) = r1; r1 = r6; r2 = 8; r3 = r6; r4 = 8; r5 = 0; call %[bpf_csum_diff]; r1 = r6; r2 = 0; call %[bpf_ringbuf_submit]; 1: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: reject "more than one arg with ref_obj_id R3 4 2"
SEC("tc")
__naked int s25_two_ref_csum_two(void)
{
	asm volatile(RES(8) "r6 = r0;" RES(8) "r7 = r0; if r6 == 0 goto 2f; if r7 == 0 goto 3f; r1 = 0; *(u64*)(r6+0) = r1; *(u64*)(r7+0) = r1; r1 = r6; r2 = 8; r3 = r7; r4 = 8; r5 = 0; call %[bpf_csum_diff]; r1 = r7; r2 = 0; call %[bpf_ringbuf_submit]; 3: r1 = r6; r2 = 0; call %[bpf_ringbuf_submit]; r0 = 0; exit; 2: if r7 == 0 goto 1f; r1 = r7; r2 = 0; call %[bpf_ringbuf_submit]; 1: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_one_ref_csum(void)
{
	asm volatile(RES(8) "if r0 == 0 goto 1f; r6 = r0; r1 = 0; *(u64*)(r6+0) = r1; *(u64*)(r10-8) = r1; r1 = r6; r2 = 8; r3 = r10; r3 += -8; r4 = 8; r5 = 0; call %[bpf_csum_diff]; r1 = r6; r2 = 0; call %[bpf_ringbuf_submit]; 1: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: reject "more than one arg with ref_obj_id R3 2 2"
SEC("tc")
__naked int s25_two_ref_update(void)
{
	asm volatile(RES(8) "if r0 == 0 goto 1f; r6 = r0; r1 = 0; *(u64*)(r6+0) = r1; r1 = %[s25_hm] ll; r2 = r6; r3 = r6; r4 = 0; call %[bpf_map_update_elem]; r1 = r6; r2 = 0; call %[bpf_ringbuf_submit]; 1: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_ref_key_lookup(void)
{
	asm volatile(RES(8) "if r0 == 0 goto 1f; r6 = r0; r1 = 0; *(u64*)(r6+0) = r1; r1 = %[s25_hm] ll; r2 = r6; call %[bpf_map_lookup_elem]; r1 = r6; r2 = 0; call %[bpf_ringbuf_submit]; 1: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: reject "more than one arg with ref_obj_id R2 2 4"
SEC("tc")
__naked int s25_two_ref_syncookie(void)
{
	asm volatile("r6 = r1;" RES(64) "if r0 == 0 goto 1f; r7 = r0; r1 = r6;" LOOKUP(bpf_sk_lookup_tcp) "if r0 == 0 goto 2f; r8 = r0; r1 = r0; r2 = r7; r3 = 20; r4 = r7; r4 += 20; r5 = 20; call %[bpf_tcp_check_syncookie]; r1 = r8; call %[bpf_sk_release]; 2: r1 = r7; r2 = 0; call %[bpf_ringbuf_discard]; 1: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

/* The record unchecked for NULL: the type check of the second referenced
 * argument fails before its reference is counted. */
// vercheck: reject "R2 type=ringbuf_mem_or_null expected="
SEC("tc")
__naked int s25_two_ref_syncookie_null(void)
{
	asm volatile("r6 = r1;" RES(64) "r7 = r0; r1 = r6;" LOOKUP(bpf_sk_lookup_tcp) "if r0 == 0 goto 2f; r8 = r0; r1 = r0; r2 = r7; r3 = 20; r4 = r7; r5 = 20; call %[bpf_tcp_check_syncookie]; r1 = r8; call %[bpf_sk_release]; 2: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_rb_output_self(void)
{
	asm volatile(RES(8) "if r0 == 0 goto 1f; r6 = r0; r1 = 0; *(u64*)(r6+0) = r1; r1 = %[s25_rb] ll; r2 = r6; r3 = 8; r4 = 0; call %[bpf_ringbuf_output]; r1 = r6; r2 = 0; call %[bpf_ringbuf_submit]; 1: r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: reject "func bpf_sk_release#86 reference has not been acquired before"
SEC("tc")
__naked int s25_q_eq_nul_release_r0(void)
{
	asm volatile(SK_HEAD "r1 = r0; call %[bpf_sk_release]; r1 = r9; call %[bpf_sk_release]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_q_eq_nul_noleak(void)
{
	asm volatile(SK_HEAD "r1 = r9; call %[bpf_sk_release]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_q_eq_nul_use_r0(void)
{
	asm volatile(SK_HEAD "r2 = *(u32*)(r0+4); r1 = r9; call %[bpf_sk_release]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_q_eq_nul_fullsock_r0(void)
{
	asm volatile(SK_HEAD "r1 = r0; call %[bpf_sk_fullsock]; r1 = r9; call %[bpf_sk_release]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: reject "func bpf_sk_release#86 reference has not been acquired before"
SEC("tc")
__naked int s25_q_eq_nul_tcpsock_release(void)
{
	asm volatile(SK_HEAD "r1 = r0; call %[bpf_tcp_sock]; if r0 == 0 goto 6f; r1 = r0; call %[bpf_sk_release]; 6: r1 = r9; call %[bpf_sk_release]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: reject "func bpf_ringbuf_submit#132 reference has not been acquired before"
SEC("tc")
__naked int s25_q_rb_eq_nul_submit_r0(void)
{
	asm volatile(RB_HEAD "r1 = r0; r2 = 0; call %[bpf_ringbuf_submit]; r1 = r9; r2 = 0; call %[bpf_ringbuf_discard]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_q_rb_eq_nul_noleak(void)
{
	asm volatile(RB_HEAD "r1 = r9; r2 = 0; call %[bpf_ringbuf_discard]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}

// vercheck: accept
SEC("tc")
__naked int s25_q_rb_eq_nul_write_r0(void)
{
	asm volatile(RB_HEAD "r1 = 0; *(u64*)(r0+0) = r1; r1 = r9; r2 = 0; call %[bpf_ringbuf_discard]; r0 = 0; exit;"
		:: S25_ARGS : __clobber_all);
}
