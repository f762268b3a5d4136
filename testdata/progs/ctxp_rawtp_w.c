// Writable raw tracepoints (raw_tp.w): the first context word is the
// tracepoint's writable buffer (PTR_TO_TP_BUFFER), read and written at
// constant, non-negative offsets; how far the program reaches is checked
// against the tracepoint only when the program is attached.
#include "progs.h"

char _license[] SEC("license") = "GPL";

/* Read and write the buffer, also through a moved pointer. */
// vercheck: accept
SEC("raw_tp.w/bpf_test_finish")
__naked int ctxp_rawtp_w_rw(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"r3 = *(u32 *)(r2 + 4);"
	"r3 += 1;"
	"*(u32 *)(r2 + 4) = r3;"
	"r2 += 16;"
	"*(u64 *)(r2 + 8) = r3;"
	"r4 = *(u8 *)(r2 + 1);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The other arguments are plain numbers, read-only as in raw_tp. */
// vercheck: accept
SEC("raw_tp.w/bpf_test_finish")
__naked int ctxp_rawtp_w_args(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 8);"
	"r3 = *(u32 *)(r1 + 16);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The buffer pointer is read whole. */
// vercheck: reject "invalid bpf_context access off=0 size=4"
SEC("raw_tp.w/bpf_test_finish")
__naked int ctxp_rawtp_w_narrow(void)
{
	asm volatile (
	"r2 = *(u32 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The context itself stays read-only. */
// vercheck: reject "invalid bpf_context access off=0 size=8"
SEC("raw_tp.w/bpf_test_finish")
__naked int ctxp_rawtp_w_ctx_write(void)
{
	asm volatile (
	"r2 = 0;"
	"*(u64 *)(r1 + 0) = r2;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* No access before the buffer. */
// vercheck: reject "R2 invalid tracepoint buffer access: off=-8, size=8"
SEC("raw_tp.w/bpf_test_finish")
__naked int ctxp_rawtp_w_negative(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"r2 += 8;"
	"r3 = *(u64 *)(r2 - 16);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* No variable offsets. */
// vercheck: reject "R2 invalid variable buffer offset: off=0, var_off=(0x0; 0x7)"
SEC("raw_tp.w/bpf_test_finish")
__naked int ctxp_rawtp_w_variable(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"r3 = *(u64 *)(r1 + 8);"
	"r3 &= 7;"
	"r2 += r3;"
	"r4 = *(u8 *)(r2 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The buffer is no memory argument for helpers. */
// vercheck: reject "R1 type=tp_buffer expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("raw_tp.w/bpf_test_finish")
__naked int ctxp_rawtp_w_helper(void)
{
	asm volatile (
	"r1 = *(u64 *)(r1 + 0);"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_probe_read_kernel];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_probe_read_kernel)
	: __clobber_all);
}
