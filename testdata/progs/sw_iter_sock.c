#include "progs.h"

/* Socket iterators: iter/tcp and iter/unix programs may read and set the
 * options of the socket they visit (the targets' own helper prototypes),
 * and the tracing socket storage helpers take a struct sock_common.
 * The context is struct bpf_iter__tcp: meta, then the sock_common (NULL
 * on the last call).
 */

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, int);
} sw_iter_sk_stg SEC(".maps");

/* bpf_getsockopt(TCP_CONGESTION) on the visited socket, when there is one. */
#define GETSOCKOPT_VISITED \
	"r1 = *(u64 *)(r1 + 8);" \
	"if r1 == 0 goto 1f;" \
	"r2 = 6;"  /* SOL_TCP */ \
	"r3 = 13;" /* TCP_CONGESTION */ \
	"r4 = r10;" \
	"r4 += -16;" \
	"r5 = 16;" \
	"call %[bpf_getsockopt];" \
	"1:" \
	"r0 = 0;" \
	"exit;"

// vercheck: accept
SEC("iter/tcp")
__naked int sw_iter_tcp_storage(void)
{
	asm volatile(
		"r2 = *(u64 *)(r1 + 8);"
		"if r2 == 0 goto 1f;"
		"r1 = %[sw_iter_sk_stg] ll;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_sk_storage_get];"
		"1:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(sw_iter_sk_stg), __imm(bpf_sk_storage_get)
		: __clobber_all);
}

// vercheck: accept
SEC("iter/tcp")
__naked int sw_iter_tcp_getsockopt(void)
{
	asm volatile(
		GETSOCKOPT_VISITED
		:
		: __imm(bpf_getsockopt)
		: __clobber_all);
}

/* Other iterators have no socket to set options on. */
// vercheck: reject "program of this type cannot use helper bpf_getsockopt#57"
SEC("iter/task")
__naked int sw_iter_task_getsockopt(void)
{
	asm volatile(
		GETSOCKOPT_VISITED
		:
		: __imm(bpf_getsockopt)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
