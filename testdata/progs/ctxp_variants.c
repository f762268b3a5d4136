// Helpers whose prototype depends on the program type: the socket argument
// of bpf_setsockopt in cgroup setsockopt hooks, bpf_sk_assign in sk_lookup,
// bpf_sk_storage_get in cgroup sock programs, bpf_get_cgroup_classid
// outside tc, and the BTF socket forms of tracing programs.
#include "progs.h"
#include <linux/socket.h>

#define SOL_SOCKET_ 1
#define SO_MARK_ 36

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sk_stor SEC(".maps");

/* A cgroup setsockopt hook sets options on the socket being changed. */
// vercheck: accept
SEC("cgroup/setsockopt")
int ctxp_sockopt_setsockopt_sk(struct bpf_sockopt *ctx)
{
	int mark = 7;

	if (ctx->level == SOL_SOCKET_ && ctx->optname == SO_MARK_)
		return 1;
	bpf_setsockopt(ctx->sk, SOL_SOCKET_, SO_MARK_, &mark, sizeof(mark));
	return 1;
}

/* Its context is not a socket (sock_ops and sock_addr programs pass it). */
// vercheck: reject "R1 type=ctx expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("cgroup/setsockopt")
__naked int ctxp_sockopt_setsockopt_ctx(void)
{
	asm volatile (
	"r2 = 1;"
	"r3 = 36;"
	"r4 = r10;"
	"r4 += -8;"
	"r5 = 0;"
	"*(u64 *)(r10 - 8) = r5;"
	"r5 = 4;"
	"call %[bpf_setsockopt];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_setsockopt)
	: __clobber_all);
}

/* bpf_getsockopt reads into uninitialised memory, from the socket too. */
// vercheck: accept
SEC("cgroup/setsockopt")
__naked int ctxp_sockopt_getsockopt_sk(void)
{
	asm volatile (
	"r1 = *(u64 *)(r1 + %[sk]);"
	"r2 = 1;"
	"r3 = 36;"
	"r4 = r10;"
	"r4 += -8;"
	"r5 = 4;"
	"call %[bpf_getsockopt];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_getsockopt), __imm_const(sk, offsetof(struct bpf_sockopt, sk))
	: __clobber_all);
}

/* getsockopt hooks have neither helper. */
// vercheck: reject "program of this type cannot use helper bpf_setsockopt#49"
SEC("cgroup/getsockopt")
int ctxp_sockopt_get_hook_setsockopt(struct bpf_sockopt *ctx)
{
	int mark = 7;

	bpf_setsockopt(ctx->sk, SOL_SOCKET_, SO_MARK_, &mark, sizeof(mark));
	return 1;
}

/* sk_lookup assigns a full socket, possibly NULL: ctx->sk as read. */
// vercheck: accept
SEC("sk_lookup")
int ctxp_sk_lookup_assign(struct bpf_sk_lookup *ctx)
{
	struct bpf_sock *sk = ctx->sk;

	if (bpf_sk_assign(ctx, sk, 0) < 0)
		return SK_DROP;
	return SK_PASS;
}

/* NULL clears the selection. */
// vercheck: accept
SEC("sk_lookup")
__naked int ctxp_sk_lookup_assign_null(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = 0;"
	"call %[bpf_sk_assign];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_sk_assign)
	: __clobber_all);
}

/* The context is no socket. */
// vercheck: reject "R2 type=ctx expected=sock"
SEC("sk_lookup")
__naked int ctxp_sk_lookup_assign_ctx(void)
{
	asm volatile (
	"r2 = r1;"
	"r3 = 0;"
	"call %[bpf_sk_assign];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_sk_assign)
	: __clobber_all);
}

/* In a cgroup sock program the socket storage is keyed by the context. */
// vercheck: accept
SEC("cgroup/sock_create")
int ctxp_sock_storage_ctx(struct bpf_sock *ctx)
{
	__u64 *v = bpf_sk_storage_get(&sk_stor, ctx, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (v)
		*v += 1;
	return 1;
}

/* ... and not by a NULL socket. */
// vercheck: reject "R2 type=scalar expected=ctx"
SEC("cgroup/sock_create")
__naked int ctxp_sock_storage_null(void)
{
	asm volatile (
	"r1 = %[sk_stor] ll;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_sk_storage_get];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_sk_storage_get), __imm_addr(sk_stor)
	: __clobber_all);
}

/* Outside tc and lwt, bpf_get_cgroup_classid reads the current task's
 * class id and takes no argument. */
// vercheck: accept
SEC("socket")
__naked int ctxp_classid_current(void)
{
	asm volatile (
	"r1 = 42;"
	"call %[bpf_get_cgroup_classid];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_cgroup_classid)
	: __clobber_all);
}

/* tc reads the skb's and needs the context. */
// vercheck: reject "R1 type=scalar expected=ctx"
SEC("tc")
__naked int ctxp_classid_tc_scalar(void)
{
	asm volatile (
	"r1 = 42;"
	"call %[bpf_get_cgroup_classid];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_cgroup_classid)
	: __clobber_all);
}

/* Tracing programs take the cookie of a BTF socket, or of NULL. */
// vercheck: accept
SEC("tp_btf/inet_sock_set_state")
__naked int ctxp_tracing_socket_cookie(void)
{
	asm volatile (
	"r6 = *(u64 *)(r1 + 0);"
	"r1 = r6;"
	"call %[bpf_get_socket_cookie];"
	"r1 = 0;"
	"call %[bpf_get_socket_cookie];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_socket_cookie)
	: __clobber_all);
}

/* Their context is not a socket. */
// vercheck: reject "R1 type=ctx expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("tp_btf/inet_sock_set_state")
__naked int ctxp_tracing_socket_cookie_ctx(void)
{
	asm volatile (
	"call %[bpf_get_socket_cookie];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_socket_cookie)
	: __clobber_all);
}

/* Socket storage from a tracepoint: a BTF struct sock. */
// vercheck: accept
SEC("tp_btf/inet_sock_set_state")
__naked int ctxp_tracing_sk_storage(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"r1 = %[sk_stor] ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_sk_storage_get];"
	"if r0 == 0 goto 1f;"
	"r1 = *(u64 *)(r0 + 0);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_sk_storage_get), __imm_addr(sk_stor)
	: __clobber_all);
}

/* The context is not a struct sock. */
// vercheck: reject "R2 type=ctx expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("tp_btf/inet_sock_set_state")
__naked int ctxp_tracing_sk_storage_ctx(void)
{
	asm volatile (
	"r2 = r1;"
	"r1 = %[sk_stor] ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_sk_storage_get];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_sk_storage_get), __imm_addr(sk_stor)
	: __clobber_all);
}

/* bpf_xdp_get_buff_len takes a BTF struct xdp_buff in tracing programs. */
// vercheck: reject "R1 type=ctx expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("tp_btf/inet_sock_set_state")
__naked int ctxp_tracing_xdp_buff_len_ctx(void)
{
	asm volatile (
	"call %[bpf_xdp_get_buff_len];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_xdp_get_buff_len)
	: __clobber_all);
}

/* bpf_d_path only from the functions that hold a path reference. */
// vercheck: reject "helper call is not allowed in probe"
SEC("tp_btf/inet_sock_set_state")
__naked int ctxp_tracing_d_path(void)
{
	asm volatile (
	"r2 = r10;"
	"r2 += -16;"
	"r3 = 16;"
	"call %[bpf_d_path];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_d_path)
	: __clobber_all);
}
