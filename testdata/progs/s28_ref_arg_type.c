// The order of check_func_arg's checks on a referenced argument: the
// argument's type (check_reg_type) and its offset (check_func_arg_reg_off)
// are checked before its reference is counted, so a second referenced
// argument of the wrong type is a type error, not "more than one arg with
// ref_obj_id".
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s28_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u64);
	__type(value, __u64);
} s28_hm SEC(".maps");

#define S28_ARGS __imm(bpf_sk_lookup_tcp), __imm(bpf_sk_release), __imm(bpf_tcp_check_syncookie), \
	__imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm_addr(s28_rb), \
	__imm(bpf_map_update_elem), __imm_addr(s28_hm), __imm(bpf_csum_diff), __imm(bpf_skc_to_tcp_sock)
#define LOOKUP \
	"r6 = r1; r2 = 0;" "*(u64 *)(r10 - 40) = r2;" "*(u64 *)(r10 - 32) = r2;" \
	"*(u64 *)(r10 - 24) = r2;" "*(u64 *)(r10 - 16) = r2;" "*(u32 *)(r10 - 8) = r2;" \
	"r2 = r10;" "r2 += -40;" "r3 = 36;" "r4 = -1;" "r5 = 0;" "call %[bpf_sk_lookup_tcp];" \
	"if r0 == 0 goto 9f; r9 = r0;"
#define RELEASE "r1 = r9; call %[bpf_sk_release]; 9: r0 = 0; exit;"
#define RES "r1 = %[s28_rb] ll; r2 = 8; r3 = 0; call %[bpf_ringbuf_reserve];"

/* The socket twice: arg 2 is read-only memory, and a socket is none. */
// vercheck: reject "R2 type=sock expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
__naked int s28_sock_as_mem(void)
{
	asm volatile(LOOKUP "r1 = r9; r2 = r9; r3 = 40; r4 = r10; r4 += -40; r5 = 20; call %[bpf_tcp_check_syncookie];" RELEASE
		:: S28_ARGS : __clobber_all);
}

/* A referenced tcp_sock of the same socket as the header argument. */
// vercheck: reject "R4 type=sock expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
__naked int s28_sock_as_header(void)
{
	asm volatile(LOOKUP "r1 = r9; r2 = r10; r2 += -40; r3 = 40; r4 = r9; r5 = 20; call %[bpf_tcp_check_syncookie];" RELEASE
		:: S28_ARGS : __clobber_all);
}

/* The same socket where memory of the right type is passed: refused for
 * its second reference. */
// vercheck: reject "more than one arg with ref_obj_id R2 4 2"
SEC("tc")
__naked int s28_sock_then_ringbuf(void)
{
	asm volatile(LOOKUP RES "if r0 == 0 goto 8f; r7 = r0; r1 = 0; *(u64 *)(r7 + 0) = r1;"
		"r1 = r9; r2 = r7; r3 = 8; r4 = r10; r4 += -40; r5 = 20; call %[bpf_tcp_check_syncookie];"
		"r1 = r7; r2 = 0; call %[bpf_ringbuf_submit]; 8:" RELEASE
		:: S28_ARGS : __clobber_all);
}

/* A ring buffer record as the key and a socket as the value. */
// vercheck: reject "R3 type=sock expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
__naked int s28_rec_key_sock_value(void)
{
	asm volatile(LOOKUP RES "if r0 == 0 goto 8f; r7 = r0; r1 = 0; *(u64 *)(r7 + 0) = r1;"
		"r1 = %[s28_hm] ll; r2 = r7; r3 = r9; r4 = 0; call %[bpf_map_update_elem];"
		"r1 = r7; r2 = 0; call %[bpf_ringbuf_submit]; 8:" RELEASE
		:: S28_ARGS : __clobber_all);
}

/* A socket as csum_diff's second buffer, after a referenced first one. */
// vercheck: reject "R3 type=sock expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
__naked int s28_csum_sock(void)
{
	asm volatile(LOOKUP RES "if r0 == 0 goto 8f; r7 = r0; r1 = 0; *(u64 *)(r7 + 0) = r1;"
		"r1 = r7; r2 = 8; r3 = r9; r4 = 8; r5 = 0; call %[bpf_csum_diff];"
		"r1 = r7; r2 = 0; call %[bpf_ringbuf_submit]; 8:" RELEASE
		:: S28_ARGS : __clobber_all);
}

/* The tcp_sock of the socket and the socket itself: the socket as the
 * header is a type error. */
// vercheck: reject "R4 type=sock expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
__naked int s28_tcp_sock_and_sock(void)
{
	asm volatile(LOOKUP "r1 = r9; call %[bpf_skc_to_tcp_sock]; if r0 == 0 goto 8f;"
		"r1 = r0; r2 = r10; r2 += -40; r3 = 40; r4 = r9; r5 = 20; call %[bpf_tcp_check_syncookie]; 8:" RELEASE
		:: S28_ARGS : __clobber_all);
}

/* The record as the size of its own output: a size is a scalar. */
// vercheck: reject "R3 type=ringbuf_mem expected=scalar"
SEC("tc")
__naked int s28_rec_as_size(void)
{
	asm volatile(RES "if r0 == 0 goto 9f; r7 = r0; r1 = 0; *(u64 *)(r7 + 0) = r1;"
		"r1 = %[s28_rb] ll; r2 = r7; r3 = r7; r4 = 0; call %[bpf_ringbuf_output];"
		"r1 = r7; r2 = 0; call %[bpf_ringbuf_submit]; 9: r0 = 0; exit;"
		:: S28_ARGS, __imm(bpf_ringbuf_output) : __clobber_all);
}

/* A socket as the map of a lookup whose key is the record. */
// vercheck: reject "R1 type=sock expected=map_ptr"
SEC("tc")
__naked int s28_sock_as_map(void)
{
	asm volatile(LOOKUP RES "if r0 == 0 goto 8f; r7 = r0; r1 = 0; *(u64 *)(r7 + 0) = r1;"
		"r1 = r9; r2 = r7; call %[bpf_map_lookup_elem];"
		"r1 = r7; r2 = 0; call %[bpf_ringbuf_submit]; 8:" RELEASE
		:: S28_ARGS, __imm(bpf_map_lookup_elem) : __clobber_all);
}
