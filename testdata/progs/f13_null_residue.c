#include "progs.h"

/* A maybe-NULL pointer found NULL becomes the scalar 0, but the kernel's
 * mark_ptr_or_null_reg leaves the rest of the register as it was: the map
 * (or BTF type, or memory size) of the pointer stays in the union. The
 * infinite-loop check (states_maybe_looping, then regs_exact) compares
 * registers byte-wise, so a NULL of one map's lookup does not equal a NULL
 * of another's: the loop below is refused one turn later than a model
 * that clears the register would refuse it (a message difference of the
 * fuzz run of seed 20261301, mutant 18097: the same loop with a cgroup
 * and a map lookup). */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} f13_nr_a SEC(".maps"), f13_nr_b SEC(".maps");

/* r0 holds a NULL of f13_nr_a on the first turn, of f13_nr_b on the next
 * ones. */
// vercheck: reject "infinite loop detected at insn 8"
SEC("socket")
__naked int f13_null_residue_loop(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_nr_a] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 != 0 goto l1_%=;"
	"l0_%=: r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_nr_b] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 != 0 goto l1_%=;"
	"goto l0_%=;"
	"l1_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(f13_nr_a), __imm_addr(f13_nr_b) : __clobber_all);
}

/* The first turn leaves a NULL of f13_nr_a (the object's first map) in
 * r0; later turns leave a helper's 0, whose union the kernel cleared
 * (__mark_reg_unknown). The NULL keeps its map pointer, so the two differ
 * byte-wise although vercheck's map index of f13_nr_a is 0: the loop is
 * refused at the jump, turns later (a message difference of the fuzz run
 * of seed 20261501, mutant 23930). */
// vercheck: reject "infinite loop detected at insn 14"
SEC("socket")
__naked int f13_null_residue_first_map(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_nr_a] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 != 0 goto l1_%=;"
	"l0_%=: r2 = r10;"
	"r2 += -8;"
	"r1 = %[f13_nr_b] ll;"
	"call %[bpf_map_lookup_elem];"
	"call %[bpf_jiffies64];"
	"if r0 != 0 goto l1_%=;"
	"goto l0_%=;"
	"l1_%=: r0 = 0;"
	"exit;"
	:: __imm(bpf_map_lookup_elem), __imm(bpf_jiffies64), __imm_addr(f13_nr_a), __imm_addr(f13_nr_b) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
