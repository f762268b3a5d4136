#include "progs.h"

/*
 * Loads through a map pointer read the kernel's own struct behind the map
 * (struct bpf_array here, which starts with struct bpf_map), walked with the
 * running kernel's BTF. Offsets below follow the 6.18 layout of struct
 * bpf_map: key_size at 68, the 32-bit excl at 32 followed by a hole.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} mp_array SEC(".maps");

/* A scalar field of the embedded struct bpf_map reads as an unknown value. */
// vercheck: accept
SEC("socket")
__naked int map_ptr_read_key_size(void)
{
	asm volatile (
	"r1 = %[mp_array] ll;"
	"r0 = *(u32 *)(r1 + 68);"
	"r0 &= 1;"
	"exit;"
	:
	: __imm_addr(mp_array)
	: __clobber_all);
}

/* Nothing lies before the struct. */
// vercheck: reject "R1 is bpf_array invalid negative access: off=-4"
SEC("socket")
__naked int map_ptr_read_negative(void)
{
	asm volatile (
	"r1 = %[mp_array] ll;"
	"r0 = *(u32 *)(r1 - 4);"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(mp_array)
	: __clobber_all);
}

/* The map's struct is read-only to programs. */
// vercheck: reject "only read from bpf_array is supported"
SEC("socket")
__naked int map_ptr_store(void)
{
	asm volatile (
	"r1 = %[mp_array] ll;"
	"r0 = 0;"
	"*(u32 *)(r1 + 68) = r0;"
	"exit;"
	:
	: __imm_addr(mp_array)
	: __clobber_all);
}

/* A read may not run from a 4-byte field into the hole after it. */
// vercheck: reject "access beyond the end of member excl (mend:36) in struct bpf_map with off 32 size 8"
SEC("socket")
__naked int map_ptr_read_past_member(void)
{
	asm volatile (
	"r1 = %[mp_array] ll;"
	"r0 = *(u64 *)(r1 + 32);"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(mp_array)
	: __clobber_all);
}

/* A read starting in a hole finds no field. */
// vercheck: reject "struct bpf_map doesn't have field at offset 36"
SEC("socket")
__naked int map_ptr_read_hole(void)
{
	asm volatile (
	"r1 = %[mp_array] ll;"
	"r0 = *(u32 *)(r1 + 36);"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(mp_array)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
