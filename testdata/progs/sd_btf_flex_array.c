#include "progs.h"

/* Walking a BTF pointer into the flexible array at the end of a struct
 * (struct fib6_info ends in struct fib6_nh fib6_nh[0], at byte 200): the
 * running 6.18 kernel walks the array's elements untrusted, as it walks a
 * union of several members. A pointer found there is untrusted (the
 * ipv6_route iterator of the selftests loads fib_nh_dev that way, and a
 * plain pointer there made vercheck prune where the kernel does not), and a
 * scalar read may run past the end of its member. The same read outside
 * the array is refused. */

struct bpf_iter__ipv6_route;

/* An 8-byte read at byte 8 of fib_nh_common in the array's first element
 * runs past nhc_oif (4 bytes): allowed there. */
// vercheck: accept
SEC("iter/ipv6_route")
int sd_flex_straddle(struct bpf_iter__ipv6_route *ctx)
{
	asm volatile(
	"r1 = *(u64 *)(r1 + 8);"
	"if r1 == 0 goto 1f;"
	"r2 = *(u64 *)(r1 + 208);"
	"1:"
	::: "r1", "r2");
	return 0;
}

/* The same read of fib6_metric (4 bytes at byte 144) of the struct itself
 * is refused. */
// vercheck: reject "access beyond the end of member fib6_metric (mend:148) in struct fib6_info with off 144 size 8"
SEC("iter/ipv6_route")
int sd_flex_straddle_outside(struct bpf_iter__ipv6_route *ctx)
{
	asm volatile(
	"r1 = *(u64 *)(r1 + 8);"
	"if r1 == 0 goto 1f;"
	"r2 = *(u64 *)(r1 + 144);"
	"1:"
	::: "r1", "r2");
	return 0;
}

char _license[] SEC("license") = "GPL";
