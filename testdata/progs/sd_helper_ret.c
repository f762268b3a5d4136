// bpf_set_hash_invalid returns an integer (its bpf_func_proto's ret_type
// is RET_INTEGER, the helper returns 0): r0 is a number after the call,
// not uninitialised as after the few RET_VOID helpers.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} sd_progs SEC(".maps");

// vercheck: accept
SEC("tc")
__naked int sd_set_hash_invalid_ret(void)
{
	asm volatile (
	"call %[bpf_set_hash_invalid];"
	"exit;"
	:: __imm(bpf_set_hash_invalid) : __clobber_all);
}

/* After a RET_VOID helper r0 is unset. */
// vercheck: reject "R0 !read_ok"
SEC("tc")
__naked int sd_tail_call_ret(void)
{
	asm volatile (
	"r6 = r1;"
	"r1 = %[sd_progs] ll;"
	"r2 = r1;"
	"r1 = r6;"
	"r3 = 0;"
	"call %[bpf_tail_call];"
	"exit;"
	:: __imm(bpf_tail_call), __imm_addr(sd_progs) : __clobber_all);
}

