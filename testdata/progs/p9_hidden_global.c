#include "progs.h"

/* Global functions of hidden visibility (libbpf's __hidden). libbpf marks
 * the BTF FUNC of a global subprogram whose ELF symbol is STV_HIDDEN or
 * STV_INTERNAL static before it loads the program (bpf_object__load_progs'
 * mark_btf_static fixup), so the kernel verifies such a function with its
 * caller's state, as a static function, instead of once from its prototype.
 * The same body with default visibility stays a global function. */

#define __hidden __attribute__((visibility("hidden")))

__hidden __noinline int hg_deref(int *p)
{
	return *p;
}

__noinline int dg_deref(int *p)
{
	return *p;
}

/* Reads 8 bytes through an int pointer: only the caller knows the
 * buffer is that large. */
__hidden __noinline long hg_read_long(int *p)
{
	return *(long *)p;
}

__hidden __noinline int hg_len(struct __sk_buff *skb, int *out)
{
	*out = skb->len;
	return 0;
}

/* Returns void, which only matters for a global function's checks. */
__hidden __noinline void hg_store(int *p, int v)
{
	*p = v;
}

// vercheck: accept
SEC("socket")
int hidden_unchecked_ptr(struct __sk_buff *skb)
{
	int v = skb->len;

	return hg_deref(&v) & 1;
}

// vercheck: reject "invalid mem access 'mem_or_null'"
SEC("socket")
int default_unchecked_ptr(struct __sk_buff *skb)
{
	int v = skb->len;

	return dg_deref(&v) & 1;
}

// vercheck: accept
SEC("socket")
int hidden_caller_sized(struct __sk_buff *skb)
{
	long v = skb->len;

	return hg_read_long((int *)&v) & 1;
}

// vercheck: accept
SEC("socket")
int hidden_ctx_and_void(struct __sk_buff *skb)
{
	int v = 0;

	hg_len(skb, &v);
	hg_store(&v, v + 1);
	return v & 1;
}
