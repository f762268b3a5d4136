// Socket pointers: field reads through the socket views, the reference a
// socket lookup (or a SOCKMAP lookup) holds, and the views derived from a
// referenced socket, which share its reference and die with it.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, int);
} sock_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, int);
} xsk_map SEC(".maps");

#define TUPLE_LOOKUP(fn)			\
	"r2 = 0;"				\
	"*(u64 *)(r10 - 40) = r2;"		\
	"*(u64 *)(r10 - 32) = r2;"		\
	"*(u64 *)(r10 - 24) = r2;"		\
	"*(u64 *)(r10 - 16) = r2;"		\
	"*(u32 *)(r10 - 8) = r2;"		\
	"r2 = r10;"				\
	"r2 += -40;"				\
	"r3 = %[tuple_size];"			\
	"r4 = -1;"				\
	"r5 = 0;"				\
	"call %[" #fn "];"

// vercheck: accept
SEC("tc")
__naked int sock_read_fields(void)
{
	asm volatile (
	TUPLE_LOOKUP(bpf_sk_lookup_udp)
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"r7 = *(u32 *)(r6 + %[sk_protocol]);"
	"r7 = *(u16 *)(r6 + %[sk_dst_port]);"
	"r1 = r6;"
	"call %[bpf_sk_release];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_sk_lookup_udp), __imm(bpf_sk_release),
	  __imm_const(tuple_size, sizeof(struct bpf_sock_tuple)),
	  __imm_const(sk_protocol, offsetof(struct bpf_sock, protocol)),
	  __imm_const(sk_dst_port, offsetof(struct bpf_sock, dst_port))
	: __clobber_all);
}

// vercheck: reject "R6 invalid sock_common access off=12 size=4"
SEC("tc")
__naked int sock_common_no_protocol(void)
{
	asm volatile (
	TUPLE_LOOKUP(bpf_skc_lookup_tcp)
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"r7 = *(u32 *)(r6 + %[sk_protocol]);"
	"r1 = r6;"
	"call %[bpf_sk_release];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_skc_lookup_tcp), __imm(bpf_sk_release),
	  __imm_const(tuple_size, sizeof(struct bpf_sock_tuple)),
	  __imm_const(sk_protocol, offsetof(struct bpf_sock, protocol))
	: __clobber_all);
}

// vercheck: reject "R0 cannot write into sock"
SEC("tc")
__naked int sock_no_write(void)
{
	asm volatile (
	TUPLE_LOOKUP(bpf_sk_lookup_tcp)
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"r1 = 7;"
	"*(u32 *)(r0 + 16) = r1;"
	"r1 = r6;"
	"call %[bpf_sk_release];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_sk_lookup_tcp), __imm(bpf_sk_release),
	  __imm_const(tuple_size, sizeof(struct bpf_sock_tuple))
	: __clobber_all);
}

// A tcp_sock derived from a looked-up socket holds the socket's reference:
// once the socket is released the tcp_sock is a dead scalar.
// vercheck: reject "R7 invalid mem access 'scalar'"
SEC("tc")
__naked int tcp_sock_after_release(void)
{
	asm volatile (
	TUPLE_LOOKUP(bpf_sk_lookup_tcp)
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"r1 = r0;"
	"call %[bpf_tcp_sock];"
	"r7 = r0;"
	"r1 = r6;"
	"call %[bpf_sk_release];"
	"if r7 == 0 goto 1f;"
	"r0 = *(u32 *)(r7 + 0);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_sk_lookup_tcp), __imm(bpf_sk_release), __imm(bpf_tcp_sock),
	  __imm_const(tuple_size, sizeof(struct bpf_sock_tuple))
	: __clobber_all);
}

// Releasing the derived view releases the socket.
// vercheck: accept
SEC("tc")
__naked int release_through_fullsock(void)
{
	asm volatile (
	TUPLE_LOOKUP(bpf_skc_lookup_tcp)
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"r1 = r0;"
	"call %[bpf_sk_fullsock];"
	"if r0 == 0 goto 2f;"
	"r1 = r0;"
	"call %[bpf_sk_release];"
	"r0 = 0;"
	"exit;"
	"2: r1 = r6;"
	"call %[bpf_sk_release];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_skc_lookup_tcp), __imm(bpf_sk_release), __imm(bpf_sk_fullsock),
	  __imm_const(tuple_size, sizeof(struct bpf_sock_tuple))
	: __clobber_all);
}

// A SOCKMAP lookup hands out a referenced socket.
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
__naked int sockmap_lookup_leak(void)
{
	asm volatile (
	"r1 = 1;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[sock_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r0 = *(u32 *)(r0 + %[sk_family]);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(sock_map),
	  __imm_const(sk_family, offsetof(struct bpf_sock, family))
	: __clobber_all);
}

// An XSKMAP lookup is an xdp_sock: only queue_id is readable.
// vercheck: reject "R0 invalid xdp_sock access off=0 size=2"
SEC("xdp")
__naked int xsk_lookup_narrow(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[xsk_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r0 = *(u16 *)(r0 + 0);"
	"1: r0 = 2;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(xsk_map)
	: __clobber_all);
}

// A legacy packet load may end the program: no reference may be held.
// vercheck: reject "BPF_LD_[ABS|IND] would lead to reference leak"
SEC("tc")
__naked int ld_abs_holding_socket(void)
{
	asm volatile (
	"r6 = r1;"
	TUPLE_LOOKUP(bpf_sk_lookup_tcp)
	"r7 = r0;"
	"r0 = *(u8 *)skb[0];"
	"if r7 == 0 goto 1f;"
	"r1 = r7;"
	"call %[bpf_sk_release];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_sk_lookup_tcp), __imm(bpf_sk_release),
	  __imm_const(tuple_size, sizeof(struct bpf_sock_tuple))
	: __clobber_all);
}
