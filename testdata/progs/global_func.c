#include "progs.h"

/* Global (non-static) functions: the kernel verifies each one on its own,
 * once, from a state built from its BTF prototype, and checks only the
 * arguments at each call. */

__noinline int gf_scalar(int x)
{
	return x * 3 + 1;
}

__noinline int gf_ptr_checked(int *p)
{
	if (!p)
		return 0;
	return *p + 1;
}

__noinline int gf_ptr_unchecked(int *p)
{
	return *p;
}

__noinline int gf_ctx(struct __sk_buff *skb)
{
	return skb->len;
}

__noinline void gf_void(int x)
{
	asm volatile("" : : "r"(x) : "memory");
}

/* Returns a stack pointer although its prototype says int. */
__naked __noinline int gf_ret_ptr(void)
{
	asm volatile("r0 = r10; exit;" ::: __clobber_all);
}

/* Never called: the kernel verifies global functions lazily, so its
 * unchecked dereference is never seen. */
__noinline int gf_never_called(int *p)
{
	return *p;
}

// vercheck: accept
SEC("socket")
int global_scalar(struct __sk_buff *skb)
{
	return gf_scalar(skb->len) & 1;
}

// vercheck: accept
SEC("socket")
int global_ptr_checked(struct __sk_buff *skb)
{
	int v = skb->len;

	return gf_ptr_checked(&v) & 1;
}

// vercheck: reject "R1 invalid mem access 'mem_or_null'"
SEC("socket")
int global_ptr_unchecked(struct __sk_buff *skb)
{
	int v = skb->len;

	return gf_ptr_unchecked(&v) & 1;
}

// vercheck: accept
SEC("socket")
int global_ctx(struct __sk_buff *skb)
{
	return gf_ctx(skb) & 1;
}

// vercheck: reject "Caller passes invalid args into func#1 ('gf_ptr_checked')"
SEC("socket")
int global_bad_arg(struct __sk_buff *skb)
{
	return gf_ptr_checked((int *)skb) & 1;
}

// Linux 6.18 refuses global functions that return void ("Global function
// gf_void() doesn't return scalar. Only those are supported.").
// vercheck: reject "Caller passes invalid args into func#1 ('gf_void')"
SEC("socket")
int global_void(struct __sk_buff *skb)
{
	gf_void(skb->len);
	return 0;
}

// vercheck: reject "At subprogram exit the register R0 is not a scalar value (fp)"
SEC("socket")
int global_ret_ptr(struct __sk_buff *skb)
{
	return gf_ret_ptr() & 1;
}

char _license[] SEC("license") = "GPL";
