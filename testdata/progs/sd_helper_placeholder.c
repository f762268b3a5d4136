#include "progs.h"

/* Loaders leave placeholder helper calls for themselves to patch (a
 * "call -1" that an agent turns into a telemetry helper or a no-op); one
 * the loader leaves in dead code costs nothing, since the kernel checks a
 * helper's number only on a path that reaches it. cilium/ebpf refuses to
 * encode such a number at all (it is no Linux constant of its platform
 * encoding); vercheck keeps it as the object has it. */

/* The call sits behind a branch the verifier decides. */
// vercheck: accept
SEC("socket")
__naked int placeholder_dead(void)
{
	asm volatile(
	"r0 = 0;"
	"if r0 == 0 goto 1f;"
	"call -1;"
	"1: exit;"
	::: __clobber_all);
}

/* Reached, it is an unknown helper. */
// vercheck: reject "invalid func unknown#-1"
SEC("socket")
__naked int placeholder_reached(void)
{
	asm volatile(
	"call -1;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
