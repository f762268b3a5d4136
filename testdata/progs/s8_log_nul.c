#include "progs.h"

/* The kernel rewinds its log when it pops a branch (pop_log) and ends the
 * shorter log it then writes with a NUL, leaving the tail of the longer
 * one behind that NUL. A program with an address space cast is loaded
 * through vercheck's own encoding, whose reader took that stale tail for
 * part of the log: here the fall-through path's repeated "Func#1
 * ('s8_log_nul_ok') is global and assumed valid.", a longer text than the
 * other path's, the error in the global function and the statistics, so
 * that the decisive line was read as one of those lines. */

char _license[] SEC("license") = "GPL";

__noinline int s8_log_nul_ok(int x)
{
	return x + 1;
}

__noinline int s8_log_nul_cast(int x)
{
	int r = x;

	asm volatile ("%[r] = addr_space_cast(%[r], 1, 0);" : [r] "+r"(r));
	return r;
}

// vercheck: reject "addr_space_cast insn can only be used in a program that has an associated arena"
SEC("xdp")
__naked int s8_log_nul(void)
{
	asm volatile (
	"r6 = *(u32 *)(r1 + 12);"
	"if r6 == 0 goto 1f;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r1 = 0; call s8_log_nul_ok;"
	"r0 = 0;"
	"exit;"
	"1:"
	"r1 = 0;"
	"call s8_log_nul_cast;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}
