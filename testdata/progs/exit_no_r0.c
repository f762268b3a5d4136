#include "progs.h"

/* Exits without ever setting R0. */
// vercheck: reject "R0 !read_ok"
SEC("socket")
__naked int exit_no_r0(void)
{
	asm volatile("exit;" ::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
