#include "progs.h"

/* A global function may take a struct bpf_dynptr pointer
 * (ARG_PTR_TO_DYNPTR | MEM_RDONLY): the caller must pass an initialised
 * dynptr, on its stack or one it was given, and the function, verified on
 * its own, sees a const pointer to a dynptr of the local type, which it may
 * read but not change. */

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;

__noinline int gd_read(struct bpf_dynptr *p)
{
	__u64 buf = 0;

	bpf_dynptr_read(&buf, sizeof(buf), p, 0, 0);
	return buf & 1;
}

/* The function's dynptr passed on down. */
__noinline int gd_pass_on(struct bpf_dynptr *p)
{
	return gd_read(p);
}

// vercheck: accept
SEC("tc")
int gd_from_skb(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;

	if (bpf_dynptr_from_skb(skb, 0, &ptr))
		return 0;
	return gd_read(&ptr) + gd_pass_on(&ptr);
}

/* A stack slot that holds no dynptr ("Expected an initialized dynptr as
 * arg #0"). */
// vercheck: reject "Caller passes invalid args into func#1 ('gd_read')"
SEC("tc")
int gd_uninit(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;

	__builtin_memset(&ptr, 0, sizeof(ptr));
	return gd_read(&ptr);
}

/* A number is no dynptr ("arg#0 expected pointer to stack or const struct
 * bpf_dynptr"). */
// vercheck: reject "Caller passes invalid args into func#1 ('gd_read')"
SEC("tc")
int gd_scalar(struct __sk_buff *skb)
{
	return gd_read((struct bpf_dynptr *)(unsigned long)skb->len);
}

/* The function may not make a new dynptr where it was given one. */
__noinline int gd_reinit(struct bpf_dynptr *p)
{
	char buf[8] = {};

	return bpf_dynptr_from_mem(buf, sizeof(buf), 0, p);
}

// vercheck: reject "Dynptr has to be an uninitialized dynptr"
SEC("tc")
int gd_reinit_caller(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;

	if (bpf_dynptr_from_skb(skb, 0, &ptr))
		return 0;
	return gd_reinit(&ptr);
}

char _license[] SEC("license") = "GPL";
