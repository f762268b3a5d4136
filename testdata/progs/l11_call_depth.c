#include "progs.h"

/* The call-stack depth limit (MAX_CALL_FRAMES, 8) is checked during the
 * search only where a call pushes a frame (setup_func_entry): a global
 * function pushes none, so the search goes on, and the whole chain is
 * refused after it by check_max_stack_depth, which counts the global
 * function's frame too. */

__noinline __weak int l11_global_leaf(int x)
{
	return x + 1;
}

#define L11_CHAIN(name, next)                        \
	static __noinline int name(int x)            \
	{                                            \
		asm volatile("" : "+r"(x));          \
		return next(x) + 1;                  \
	}

L11_CHAIN(l11_d7, l11_global_leaf)
L11_CHAIN(l11_d6, l11_d7)
L11_CHAIN(l11_d5, l11_d6)
L11_CHAIN(l11_d4, l11_d5)
L11_CHAIN(l11_d3, l11_d4)
L11_CHAIN(l11_d2, l11_d3)
L11_CHAIN(l11_d1, l11_d2)

/* Main and seven static functions make eight frames; the global function
 * the seventh calls would be the ninth. */
// vercheck: reject "the call stack of 8 frames is too deep !"
SEC("tc")
int l11_global_at_max_depth(struct __sk_buff *skb)
{
	return l11_d1(skb->len) & 1;
}

char _license[] SEC("license") = "GPL";
