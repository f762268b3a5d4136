#include "progs.h"

/* Comparing an XDP socket from an xskmap lookup, checked non-NULL, with a
 * register holding 0 is decided: this build's is_branch_taken asks 7.x's
 * reg_not_null, which counts XDP sockets, so the load through the zero
 * register is dead code. 6.18.0's reg_not_null (stablefix
 * not-null-no-xsk-buf, the old rule) walks both edges. A false reject of
 * the fuzz run of seed 20261323 (mutant 24855 of verifier_jeq_infer_not_null).
 */

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, int);
} xsk SEC(".maps");

// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without not-null-no-xsk-buf
SEC("xdp")
__naked int c13_xsk_ne_zero_reg(void)
{
	asm volatile(
	"r1 = 0; *(u32 *)(r10 - 8) = r1;"
	"r2 = r10; r2 += -8;"
	"r1 = %[xsk] ll;"
	"call %[bpf_map_lookup_elem];"
	"r6 = r0;"
	"r7 = 0;"
	"if r6 == 0 goto l0_%=;"
	"if r6 != r7 goto l0_%=;"
	"r0 = *(u32 *)(r7 + 0);"
	"l0_%=: r0 = 0; exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(xsk) : __clobber_all);
}

// vercheck: reject "R7 invalid mem access 'scalar'"
SEC("xdp")
__naked int c13_xsk_eq_zero_reg(void)
{
	asm volatile(
	"r1 = 0; *(u32 *)(r10 - 8) = r1;"
	"r2 = r10; r2 += -8;"
	"r1 = %[xsk] ll;"
	"call %[bpf_map_lookup_elem];"
	"r6 = r0;"
	"r7 = 0;"
	"if r6 == 0 goto l0_%=;"
	"if r6 == r7 goto l0_%=;"
	"r0 = *(u32 *)(r7 + 0);"
	"l0_%=: r0 = 0; exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(xsk) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
