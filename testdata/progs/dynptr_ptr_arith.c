// Arithmetic on a callback's dynptr pointer (CONST_PTR_TO_DYNPTR, r1 of a
// bpf_user_ringbuf_drain callback): adjust_ptr_min_max_vals lets the
// pointer move like other pointers (its base type is in the allowed list),
// so a bitwise operator gets the operator's message, and a moved pointer
// is refused where a helper takes it (check_func_arg_reg_off).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} dynptr_arith_rb SEC(".maps");

static __naked __attribute__((noinline, used)) int dynptr_arith_or_cb(void)
{
	asm volatile (
	"r1 |= 0;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

static __naked __attribute__((noinline, used)) int dynptr_arith_neg_cb(void)
{
	asm volatile (
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 8;"
	"call %[bpf_dynptr_data];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_data) : __clobber_all);
}

#define DRAIN(cb) \
	"r1 = %[dynptr_arith_rb] ll;" \
	"r2 = " #cb " ll;" \
	"r3 = 0;" \
	"r4 = 0;" \
	"call %[bpf_user_ringbuf_drain];" \
	"r0 = 0;" \
	"exit;"

// vercheck: reject "R1 bitwise operator |= on pointer prohibited"
SEC("tc")
__naked int dynptr_ptr_or(void)
{
	asm volatile (DRAIN(dynptr_arith_or_cb)
	:: __imm(bpf_user_ringbuf_drain), __imm_addr(dynptr_arith_rb) : __clobber_all);
}

// vercheck: reject "negative offset dynptr_ptr ptr R1 off=-16 disallowed"
SEC("tc")
__naked int dynptr_ptr_negative(void)
{
	asm volatile (DRAIN(dynptr_arith_neg_cb)
	:: __imm(bpf_user_ringbuf_drain), __imm_addr(dynptr_arith_rb) : __clobber_all);
}
