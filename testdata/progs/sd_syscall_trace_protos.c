// Syscall programs get the helpers they do not define themselves from
// tracing_prog_func_proto, so bpf_xdp_get_buff_len takes a BTF struct
// xdp_buff there (bpf_xdp_get_buff_len_trace_proto), not the context, and
// the socket storage helpers are the tracing ones, which a program without
// a tracing attach type may not call (bpf_sk_storage_tracing_allowed).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sd_sc_sk SEC(".maps");

// vercheck: reject "helper call is not allowed in probe"
SEC("syscall")
__naked int sd_syscall_sk_storage_get(void)
{
	asm volatile (
	"r1 = %[sd_sc_sk] ll;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_sk_storage_get];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_sk_storage_get), __imm_addr(sd_sc_sk) : __clobber_all);
}

// vercheck: reject "helper call is not allowed in probe"
SEC("syscall")
__naked int sd_syscall_sk_storage_delete(void)
{
	asm volatile (
	"r1 = %[sd_sc_sk] ll;"
	"r2 = 0;"
	"call %[bpf_sk_storage_delete];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_sk_storage_delete), __imm_addr(sd_sc_sk) : __clobber_all);
}

// vercheck: reject "R1 type=fp expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("syscall")
__naked int sd_syscall_xdp_buff_len_stack(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -16;"
	"call %[bpf_xdp_get_buff_len];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_xdp_get_buff_len) : __clobber_all);
}

// vercheck: reject "R1 type=ctx expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("syscall")
__naked int sd_syscall_xdp_buff_len_ctx(void)
{
	asm volatile (
	"call %[bpf_xdp_get_buff_len];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_xdp_get_buff_len) : __clobber_all);
}
