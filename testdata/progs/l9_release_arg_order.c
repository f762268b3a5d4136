#include "progs.h"

/* check_func_arg tests a release argument (it must hold a reference or be
 * NULL) while it checks that argument, before the arguments after it: on a
 * kernel without stablefix.ScalarAddPtrCopy, a copy of a ring buffer
 * record made as "0 + record" (no reference) passed to bpf_ringbuf_submit
 * with r2 never written is refused for the reference, not for r2's
 * "!read_ok", which vercheck reported (it checked references after all
 * arguments; found by the fuzzer as a message difference). With the fix
 * (this machine's kernel) the copy holds the reference, and r2 is the
 * error. */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} l9_rb SEC(".maps");

// vercheck: reject "R2 !read_ok"
// vercheck: reject "R1 must be referenced when passed to release function" without scalar-add-ptr-copy
SEC("tc")
__naked int l9_release_before_later_arg(void)
{
	asm volatile(
		"r1 = %[l9_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"r1 += r0;"
		"call %[bpf_ringbuf_submit];"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(l9_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit)
		: __clobber_all);
}

/* The referenced record with r2 unwritten: now r2 is the error. */
// vercheck: reject "R2 !read_ok"
SEC("tc")
__naked int l9_release_then_later_arg(void)
{
	asm volatile(
		"r1 = %[l9_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"if r0 == 0 goto l0_%=;"
		"r1 = r0;"
		"call %[bpf_ringbuf_submit];"
		"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(l9_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_submit)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
