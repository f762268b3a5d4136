#include "progs.h"

/* The dynptr argument of a global function (stablefix.GlobalDynptrSKB).
 * The callee is verified once for every caller, and this machine's kernel
 * takes the argument for an skb dynptr (R1=dynptr_ptr(type=skb)) where 6.18
 * and 7.2 assume a local one: a bpf_dynptr_write through it may move the
 * packet, so the slices bpf_dynptr_slice took before are invalidated
 * (clear_all_pkt_pointers), whatever dynptr the caller passed.
 * bpf_dynptr_data's slices carry no packet flag and survive. */

char _license[] SEC("license") = "GPL";

struct bpf_dynptr;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

char gbuf[16];

__noinline int gd_slice_write(struct bpf_dynptr *d)
{
	long v = 1;
	long *p = bpf_dynptr_slice(d, 0, 0, 8);

	if (!p)
		return 0;
	bpf_dynptr_write(d, 0, &v, 8, 0);
	return *p;
}

__noinline int gd_data_write(struct bpf_dynptr *d)
{
	long v = 1;
	long *p = bpf_dynptr_data(d, 0, 8);

	if (!p)
		return 0;
	bpf_dynptr_write(d, 0, &v, 8, 0);
	return *p;
}

// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without global-dynptr-skb
SEC("tc")
int gd_slice_write_tc(void *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(gbuf, 16, 0, &d);
	return gd_slice_write(&d);
}

/* A program that cannot touch packets at all gets the same callee. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without global-dynptr-skb
SEC("socket")
int gd_slice_write_socket(void *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(gbuf, 16, 0, &d);
	return gd_slice_write(&d);
}

// vercheck: accept
SEC("xdp")
int gd_data_write_xdp(void *ctx)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(gbuf, 16, 0, &d);
	return gd_data_write(&d);
}

/* In the function that built it, the dynptr is local: the slice survives. */
// vercheck: accept
SEC("tc")
int gd_slice_write_local(void *ctx)
{
	struct bpf_dynptr d;
	long v = 1;
	long *p;

	bpf_dynptr_from_mem(gbuf, 16, 0, &d);
	p = bpf_dynptr_slice(&d, 0, 0, 8);
	if (!p)
		return 0;
	bpf_dynptr_write(&d, 0, &v, 8, 0);
	return *p;
}
