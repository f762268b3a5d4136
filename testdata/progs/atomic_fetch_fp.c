#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} fetch_slots SEC(".maps");

/* A fetching atomic writes the old value into its source register: with
 * r10 as the source that is a write of the frame pointer, refused before
 * the memory is looked at (check_atomic_rmw: check_reg_arg DST_OP). */
// vercheck: reject "frame pointer is read only"
SEC("socket")
__naked int atomic_fetch_or_into_fp(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[fetch_slots] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r10 = atomic_fetch_or((u64 *)(r0 + 0), r10);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(fetch_slots)
	: __clobber_all);
}

/* The same for an exchange. */
// vercheck: reject "frame pointer is read only"
SEC("socket")
__naked int atomic_xchg_into_fp(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[fetch_slots] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r10 = xchg_64(r0 + 0, r10);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(fetch_slots)
	: __clobber_all);
}

/* Without fetch the source is only read: r10 may be added (a privileged
 * loader may store a pointer). */
// vercheck: accept
SEC("socket")
__naked int atomic_add_fp_no_fetch(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[fetch_slots] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"lock *(u64 *)(r0 + 0) += r10;"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(fetch_slots)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
