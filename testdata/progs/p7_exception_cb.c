#include "progs.h"

/* Exception callbacks: bpf_experimental.h's __exception_cb(NAME) tags a program's function with
 * "exception_callback:NAME". Nothing calls the callback; libbpf appends it
 * to the program (and so does vercheck's loader), and the kernel verifies
 * it as a second entry point: a global function taking one scalar (the
 * cookie of bpf_throw), whose return value must be one the program type
 * allows. It may not be called directly, nor throw.
 */

extern void bpf_throw(__u64 cookie) __ksym;

__attribute__((noinline)) int p7_cb_cookie(__u64 cookie)
{
	return cookie & 1;
}

/* The callback turns the cookie into 0 or 1: good for cgroup_skb. */
// vercheck: accept
SEC("cgroup_skb/ingress")
__attribute__((btf_decl_tag("exception_callback:p7_cb_cookie")))
int p7_exc_cb_ok(struct __sk_buff *skb)
{
	if (skb->len > 100)
		bpf_throw(skb->len);
	return 1;
}

__attribute__((noinline)) int p7_cb_two(__u64 cookie)
{
	return (int)cookie + 2;
}

/* The callback's return value is checked as the program's: cgroup_skb
 * allows only 0 and 1. */
// vercheck: reject "At program exit the register R0 has smin=0 smax=4294967295 should have been in [0, 1]"
SEC("cgroup_skb/ingress")
__attribute__((btf_decl_tag("exception_callback:p7_cb_two")))
int p7_exc_cb_bad_ret(struct __sk_buff *skb)
{
	if (skb->len > 100)
		bpf_throw(0);
	return 1;
}

__attribute__((noinline)) int p7_cb_args(__u64 cookie, __u64 more)
{
	return cookie + more;
}

/* One scalar argument only. */
// vercheck: reject "exception cb only supports single integer argument"
SEC("tc")
__attribute__((btf_decl_tag("exception_callback:p7_cb_args")))
int p7_exc_cb_two_args(struct __sk_buff *skb)
{
	bpf_throw(0);
	return 0;
}

__attribute__((noinline)) int p7_cb_called(__u64 cookie)
{
	return cookie;
}

/* The program may not call its exception callback. */
// vercheck: reject "cannot call exception cb directly"
SEC("tc")
__attribute__((btf_decl_tag("exception_callback:p7_cb_called")))
int p7_exc_cb_called(struct __sk_buff *skb)
{
	return p7_cb_called(skb->len);
}

__attribute__((noinline)) int p7_cb_throws(__u64 cookie)
{
	if (cookie > 5)
		bpf_throw(0);
	return cookie;
}

/* Nor may the callback throw. */
// vercheck: reject "cannot be called from callback subprog"
SEC("tc")
__attribute__((btf_decl_tag("exception_callback:p7_cb_throws")))
int p7_exc_cb_throws(struct __sk_buff *skb)
{
	bpf_throw(1);
	return 0;
}

char _license[] SEC("license") = "GPL";
