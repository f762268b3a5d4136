#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} release_rb SEC(".maps");

/* A reservation submitted through a pointer moved by a constant. */
// vercheck: reject "R1 must have zero offset when passed to release func or trusted arg to kfunc"
SEC("socket")
__naked int ringbuf_submit_moved(void)
{
	asm volatile (
	"r1 = %[release_rb] ll;"
	"r2 = 16;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 1f;"
	"r1 = r0;"
	"r1 += 8;"
	"r2 = 0;"
	"call %[bpf_ringbuf_submit];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit), __imm_addr(release_rb)
	: __clobber_all);
}

/* Moved by a variable amount: the generic pointer-offset check answers. */
// vercheck: reject "variable ringbuf_mem access var_off=(0x0; 0x8) disallowed"
SEC("socket")
__naked int ringbuf_discard_moved_var(void)
{
	asm volatile (
	"r1 = %[release_rb] ll;"
	"r2 = 16;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 8;"
	"r1 = r6;"
	"r1 += r0;"
	"r2 = 0;"
	"call %[bpf_ringbuf_discard];"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_discard), __imm(bpf_get_prandom_u32),
	  __imm_addr(release_rb)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
