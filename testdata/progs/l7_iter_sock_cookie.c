#include "progs.h"

/* bpf_get_socket_cookie in tracing programs is bpf_get_socket_ptr_cookie:
 * its argument is a socket that may be NULL (ARG_PTR_TO_BTF_ID_SOCK_COMMON
 * | PTR_MAYBE_NULL; the cookie of NULL is 0), so check_reg_type folds
 * PTR_MAYBE_NULL out of the register's type before matching it. */

struct udp_sock {
	int pending;
} __attribute__((preserve_access_index));

struct bpf_iter__udp {
	void *meta;
	struct udp_sock *udp_sk;
} __attribute__((preserve_access_index));

/* An iterator's socket may be NULL: passed as it is. */
// vercheck: accept
SEC("iter/udp")
int l7_iter_udp_cookie_maybe_null(struct bpf_iter__udp *ctx)
{
	return bpf_get_socket_cookie(ctx->udp_sk) == 7;
}

char _license[] SEC("license") = "GPL";
