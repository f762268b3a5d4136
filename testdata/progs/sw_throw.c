#include "progs.h"

/* BPF exceptions: bpf_throw ends the program at once (an exceptional exit).
 * Without an exception callback the cookie becomes the program's return
 * value, so it must pass the program type's return-code check (as R1); a
 * reference or an RCU section still open at the throw is refused; callbacks
 * may not throw.
 */

extern void bpf_throw(__u64 cookie) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

/* A throw is an exit: the code after it is never reached. */
// vercheck: accept
SEC("tc")
__naked int sw_throw_tc(void)
{
	asm volatile(
		"r1 = 7;"
		"call %[bpf_throw];"
		"r0 = *(u64 *)(r9 + 0);"
		"exit;"
		:
		: __imm(bpf_throw)
		: __clobber_all);
}

/* A throw on one branch only: the other branch returns normally. */
// vercheck: accept
SEC("cgroup_skb/ingress")
__naked int sw_throw_branch(void)
{
	asm volatile(
		"r6 = r1;"
		"r0 = *(u32 *)(r6 + 0);"
		"if r0 > 100 goto 1f;"
		"r1 = 0;"
		"call %[bpf_throw];"
		"1:"
		"r0 = 1;"
		"exit;"
		:
		: __imm(bpf_throw)
		: __clobber_all);
}

/* The cookie is the return value: cgroup_skb must return 0 or 1. */
// vercheck: reject "At program exit the register R1 has smin=2 smax=2 should have been in [0, 1]"
SEC("cgroup_skb/ingress")
__naked int sw_throw_bad_cookie(void)
{
	asm volatile(
		"r1 = 2;"
		"call %[bpf_throw];"
		"r0 = 1;"
		"exit;"
		:
		: __imm(bpf_throw)
		: __clobber_all);
}

static __attribute__((noinline)) int throw_in_subprog(int x)
{
	if (x > 10)
		bpf_throw(3);
	return x;
}

/* A static subprogram's throw is checked against the main program's
 * return range: cgroup_skb allows 0 and 1 only. */
// vercheck: reject "At program exit the register R1 has smin=3 smax=3 should have been in [0, 1]"
SEC("cgroup_skb/ingress")
int sw_throw_subprog_bad_cookie(struct __sk_buff *skb)
{
	return throw_in_subprog(skb->len) & 1;
}

/* In tc any cookie will do. */
// vercheck: accept
SEC("tc")
int sw_throw_subprog(struct __sk_buff *skb)
{
	return throw_in_subprog(skb->len);
}

/* A global function is verified on its own: there the cookie only needs
 * to be a scalar. */
__attribute__((noinline)) int sw_throw_global(int x)
{
	if (x > 10)
		bpf_throw(x);
	return x;
}

// vercheck: accept
SEC("tc")
int sw_throw_from_global(struct __sk_buff *skb)
{
	return sw_throw_global(skb->len);
}

/* A reference still held at the throw leaks. */
// vercheck: reject "bpf_throw would lead to reference leak"
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak" without throw-lock-check
SEC("tc")
int sw_throw_ref_leak(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk = bpf_sk_lookup_tcp(skb, &tuple, sizeof(tuple.ipv4), -1, 0);

	if (sk)
		bpf_throw(0);
	return 0;
}

static __attribute__((noinline)) int throw_under_rcu(int x)
{
	bpf_rcu_read_lock();
	if (x > 10)
		bpf_throw(0);
	bpf_rcu_read_unlock();
	return x;
}

/* An RCU section open in a subprogram at the throw. */
// vercheck: reject "bpf_throw cannot be used inside bpf_rcu_read_lock-ed region"
// vercheck: accept without throw-lock-check
SEC("tc")
int sw_throw_subprog_rcu(struct __sk_buff *skb)
{
	return throw_under_rcu(skb->len);
}

static int throw_in_callback(__u32 i, void *ctx)
{
	bpf_throw(0);
	return 0;
}

/* Callbacks may not throw: the helper that calls them would be unwound. */
// vercheck: reject "cannot be called from callback subprog"
SEC("tc")
int sw_throw_callback(struct __sk_buff *skb)
{
	bpf_loop(2, throw_in_callback, 0, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
