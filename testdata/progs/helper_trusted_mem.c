// A trusted BTF pointer given as helper memory: check_reg_type finds
// PTR_TO_BTF_ID | PTR_TRUSTED in mem_types, then refuses it for every
// argument without MEM_RDONLY (map keys, buffers the helper writes).
#include "progs.h"
char _license[] SEC("license") = "GPL";
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 4); __type(key, __u64); __type(value, __u64); } trusted_mem_map SEC(".maps");
// vercheck: reject "bpf_map_lookup_elem() may write into memory pointed by R2 type=trusted_ptr_"
SEC("tp_btf/sched_switch")
__naked int trusted_task_as_map_key(void)
{
	asm volatile (
	"call %[bpf_get_current_task_btf];"
	"r2 = r0;"
	"r1 = %[trusted_mem_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"r0 = 0;"
	"exit;"
	: : __imm(bpf_get_current_task_btf), __imm(bpf_map_lookup_elem), __imm_addr(trusted_mem_map) : __clobber_all);
}
// vercheck: reject "bpf_probe_read_kernel_str() may write into memory pointed by R1 type=trusted_ptr_"
SEC("tp_btf/sched_switch")
__naked int trusted_task_as_out_buf(void)
{
	asm volatile (
	"call %[bpf_get_current_task_btf];"
	"r1 = r0;"
	"r2 = 16;"
	"r3 = 0;"
	"call %[bpf_probe_read_kernel_str];"
	"r0 = 0;"
	"exit;"
	: : __imm(bpf_get_current_task_btf), __imm(bpf_probe_read_kernel_str) : __clobber_all);
}
