// Map loads that no relocation binds to a map. Loaders (libbpf,
// cilium/ebpf) leave such an ld_imm64 as it is, so the kernel reads its
// immediate as a file descriptor of the loading process (or, for the
// BPF_PSEUDO_MAP_IDX forms, an index into an fd_array the loader does not
// pass), never as an index into the object's maps, even though this
// object has a map. The loads are encoded by hand: clang emits a map load
// only with a relocation.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} li_counts SEC(".maps");

// The relocated load of the same map is fine.
// vercheck: accept
SEC("socket")
__naked int li_bound_map(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[li_counts] ll;"
	"call %[bpf_map_lookup_elem];"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(li_counts), __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

// r1 = BPF_PSEUDO_MAP_FD with imm 0: fd 0 of the loader, not map 0.
// vercheck: reject "fd 0 is not pointing to valid bpf_map"
SEC("socket")
__naked int li_raw_map_fd(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	".8byte 0x0000000000001118;"
	".8byte 0;"
	"call %[bpf_map_lookup_elem];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem)
	: __clobber_all);
}

// r1 = BPF_PSEUDO_MAP_VALUE with imm 0 and offset 0: the same fd.
// vercheck: reject "fd 0 is not pointing to valid bpf_map"
SEC("socket")
__naked int li_raw_map_value(void)
{
	asm volatile (
	".8byte 0x0000000000002118;"
	".8byte 0;"
	"r0 = *(u64 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// r1 = BPF_PSEUDO_MAP_IDX with imm 0: an index into the fd_array that
// loaders pass only for module kfuncs.
// vercheck: reject "fd_idx without fd_array is invalid"
SEC("socket")
__naked int li_raw_map_idx(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	".8byte 0x0000000000005118;"
	".8byte 0;"
	"call %[bpf_map_lookup_elem];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem)
	: __clobber_all);
}
