#include "progs.h"

/* Pointer arithmetic keeps the size of memory of 2^31 bytes or more: a
 * bpf_dynptr_data slice of 0xffffffff bytes moved by a constant or by a
 * variable in [0, 255] is still 4 GiB of memory. Only a packet pointer
 * forgets the AT_PKT_END/BEYOND_PKT_END marks a comparison with pkt_end
 * left (stablefix.PktRangeArith); vercheck, which keeps a memory size and
 * those marks in one field, took the size for such a mark and reset it to
 * 0 (a false reject of the fuzz run of seed 20261311, mutant 1289). */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} f13_ms_rb SEC(".maps");

/* A variable offset. */
// vercheck: accept
SEC("tc")
__naked int f13_mem_size_var_add(void)
{
	asm volatile (
	"r6 = r1;"
	"r7 = r10;"
	"r7 += -16;"
	"r1 = %[f13_ms_rb] ll;"
	"w2 = 8;"
	"r3 = 0;"
	"r4 = r7;"
	"call %[bpf_ringbuf_reserve_dynptr];"
	"r1 = r7;"
	"w2 = 0;"
	"w3 = -1;"
	"call %[bpf_dynptr_data];"
	"if r0 == 0 goto l0_%=;"
	"r1 = *(u32 *)(r6 + 0);"
	"r9 = r1;"
	"r9 &= 0xff;"
	"r0 += r9;"
	"*(u32 *)(r0 + 0) = r1;"
	"l0_%=: r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"call %[bpf_ringbuf_submit_dynptr];"
	"w0 = 0;"
	"exit;"
	:
	: __imm(bpf_ringbuf_reserve_dynptr), __imm(bpf_dynptr_data), __imm(bpf_ringbuf_submit_dynptr), __imm_addr(f13_ms_rb)
	: __clobber_all);
}

/* A constant offset. */
// vercheck: accept
SEC("tc")
__naked int f13_mem_size_const_add(void)
{
	asm volatile (
	"r6 = r1;"
	"r7 = r10;"
	"r7 += -16;"
	"r1 = %[f13_ms_rb] ll;"
	"w2 = 8;"
	"r3 = 0;"
	"r4 = r7;"
	"call %[bpf_ringbuf_reserve_dynptr];"
	"r1 = r7;"
	"w2 = 0;"
	"w3 = -1;"
	"call %[bpf_dynptr_data];"
	"if r0 == 0 goto l0_%=;"
	"r1 = *(u32 *)(r6 + 0);"
	"r0 += 4096;"
	"*(u32 *)(r0 + 0) = r1;"
	"l0_%=: r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"call %[bpf_ringbuf_submit_dynptr];"
	"w0 = 0;"
	"exit;"
	:
	: __imm(bpf_ringbuf_reserve_dynptr), __imm(bpf_dynptr_data), __imm(bpf_ringbuf_submit_dynptr), __imm_addr(f13_ms_rb)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
