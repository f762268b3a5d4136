#include "progs.h"

/* The kernel creates device maps with BPF_F_RDONLY_PROG whatever the
 * loader asks (dev_map_init_map): a lookup in a device
 * map gives the program the kernel's own entry, which it may read but not
 * write (check_map_access_type), and the helpers that change entries are
 * refused (record_func_map). */

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} l7_devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} l7_devs_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} l7_cpus SEC(".maps");

/* Reading an entry is fine. */
// vercheck: accept
SEC("xdp")
int l7_devmap_read(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&l7_devs, &key);

	return v && *v == 7 ? XDP_DROP : XDP_PASS;
}

/* Writing one is not. */
// vercheck: reject "write into map forbidden, value_size=8 off=0 size=4"
SEC("xdp")
__naked int l7_devmap_write(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[l7_devs] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto l0_%=;"
		"w1 = 1;"
		"lock *(u32 *)(r0 + 0) += w1;"
		"l0_%=:"
		"r0 = 2;"
		"exit;"
		:
		: __imm_addr(l7_devs), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* Nor in a hashed device map. */
// vercheck: reject "write into map forbidden, value_size=8 off=0 size=8"
SEC("xdp")
__naked int l7_devmap_hash_write(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[l7_devs_hash] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 1;"
		"*(u64 *)(r0 + 0) = r1;"
		"l0_%=:"
		"r0 = 2;"
		"exit;"
		:
		: __imm_addr(l7_devs_hash), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

/* Updating one from the program is a write too. */
// vercheck: reject "write into map forbidden"
SEC("xdp")
__naked int l7_devmap_update(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"*(u64 *)(r10 - 16) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r3 = r10;"
		"r3 += -16;"
		"r4 = 0;"
		"r1 = %[l7_devs] ll;"
		"call %[bpf_map_update_elem];"
		"r0 = 2;"
		"exit;"
		:
		: __imm_addr(l7_devs), __imm(bpf_map_update_elem)
		: __clobber_all);
}

/* A CPU map is not made read-only: programs may not touch it but through
 * bpf_redirect_map (check_map_func_compatibility). */
// vercheck: reject "cannot pass map_type 16 into func bpf_map_update_elem#2"
SEC("xdp")
__naked int l7_cpumap_update(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"*(u32 *)(r10 - 8) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r3 = r10;"
		"r3 += -8;"
		"r4 = 0;"
		"r1 = %[l7_cpus] ll;"
		"call %[bpf_map_update_elem];"
		"r0 = 2;"
		"exit;"
		:
		: __imm_addr(l7_cpus), __imm(bpf_map_update_elem)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
