#include "progs.h"

/* A tracepoint program may read its record up to PERF_MAX_TRACE_SIZE,
 * 8192 bytes (tp_prog_is_valid_access); vercheck had 2048 and refused
 * reads beyond it (a false reject found by the fuzzer). */

// vercheck: accept
SEC("tp")
__naked int l9_tp_read_8191(void)
{
	asm volatile(
		"r0 = *(u8 *)(r1 + 4095);"
		"r0 = *(u8 *)(r1 + 8191);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

// vercheck: reject "invalid bpf_context access off=8192 size=1"
SEC("tp")
__naked int l9_tp_read_8192(void)
{
	asm volatile(
		"r0 = *(u8 *)(r1 + 8192);"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";
