/* A stack write of plain data over a spilled register sets only the
 * register's type to NOT_INIT (check_stack_write_fixed_off and _var_off):
 * its ref_obj_id stays in the slot. check_func_arg's test that a released
 * dynptr holds a reference reads ref_obj_id from the slot whatever its
 * kind, so a slot of plain data that once held a referenced pointer passes
 * it, and the release fails later, as a dynptr that is not initialised.
 * (unmark_stack_slots_dynptr meets the same stale ids when it looks for
 * clones: verifier/testdata/kernelfault/dynptr_stale_ref.c.) */
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s11_rb SEC(".maps");

/* A record spilled at fp-24, half overwritten by a scalar: the slot is
 * plain data with the record's ref_obj_id left in it. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("socket")
__naked int s11_release_stale_fixed(void)
{
	asm volatile(
		"r1 = %[s11_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"*(u64 *)(r10 - 24) = r0;"
		"call %[bpf_get_prandom_u32];"
		"*(u32 *)(r10 - 20) = r0;"
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s11_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_get_prandom_u32),
		  __imm(bpf_ringbuf_discard_dynptr)
		: __clobber_all);
}

/* The same through a write at a variable offset, which may reach the
 * slot. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("socket")
__naked int s11_release_stale_var(void)
{
	asm volatile(
		"r1 = %[s11_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"call %[bpf_ringbuf_reserve];"
		"*(u64 *)(r10 - 24) = r0;"
		"call %[bpf_get_prandom_u32];"
		"r0 &= 8;"
		"r1 = r10;"
		"r1 += -32;"
		"r1 += r0;"
		"r2 = 7;"
		"*(u64 *)(r1 + 0) = r2;"
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(s11_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_get_prandom_u32),
		  __imm(bpf_ringbuf_discard_dynptr)
		: __clobber_all);
}

/* A slot that never held a reference: the release is refused at once. */
// vercheck: reject "arg 1 is an unacquired reference"
SEC("socket")
__naked int s11_release_plain(void)
{
	asm volatile(
		"call %[bpf_get_prandom_u32];"
		"*(u64 *)(r10 - 24) = r0;"
		"*(u32 *)(r10 - 20) = r0;"
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_prandom_u32), __imm(bpf_ringbuf_discard_dynptr)
		: __clobber_all);
}
