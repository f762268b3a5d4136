// Stores of pointers the kernel does not spill (is_spillable_regtype is
// false for CONST_PTR_TO_DYNPTR and PTR_TO_TP_BUFFER): check_stack_write_fixed_off
// treats them as plain data, so a narrow store is no "invalid size of
// register spill", and the slot reads back as a scalar, no longer a dynptr.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} sd_spill_rb SEC(".maps");

static __naked __attribute__((noinline, used)) int sd_narrow_store_cb(void)
{
	asm volatile (
	"*(u32 *)(r10 - 8) = r1;"
	"r0 = *(u32 *)(r10 - 8);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int sd_full_store_cb(void)
{
	asm volatile (
	"*(u64 *)(r10 - 8) = r1;"
	"r3 = *(u64 *)(r10 - 8);"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 8;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_dynptr_read];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_read) : __clobber_all);
}

#define DRAIN(cb) \
	"r1 = %[sd_spill_rb] ll;" \
	"r2 = " #cb " ll;" \
	"r3 = 0;" \
	"r4 = 0;" \
	"call %[bpf_user_ringbuf_drain];" \
	"r0 = 0;" \
	"exit;"

// vercheck: accept
SEC("tc")
__naked int sd_dynptr_ptr_narrow_store(void)
{
	asm volatile (DRAIN(sd_narrow_store_cb)
	:: __imm(bpf_user_ringbuf_drain), __imm_addr(sd_spill_rb) : __clobber_all);
}

// vercheck: reject "R3 type=scalar expected=fp, dynptr_ptr"
SEC("tc")
__naked int sd_dynptr_ptr_spill_fill(void)
{
	asm volatile (DRAIN(sd_full_store_cb)
	:: __imm(bpf_user_ringbuf_drain), __imm_addr(sd_spill_rb) : __clobber_all);
}

/* A writable tracepoint buffer stored and read back is a number. */
// vercheck: reject "R2 invalid mem access 'scalar'"
SEC("raw_tp.w/bpf_test_finish")
__naked int sd_tp_buffer_spill_fill(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"*(u64 *)(r10 - 8) = r2;"
	"r2 = *(u64 *)(r10 - 8);"
	"r0 = *(u32 *)(r2 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* A narrow store of it is plain data too. */
// vercheck: accept
SEC("raw_tp.w/bpf_test_finish")
__naked int sd_tp_buffer_narrow_store(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 0);"
	"*(u32 *)(r10 - 8) = r2;"
	"r0 = *(u32 *)(r10 - 8);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}
