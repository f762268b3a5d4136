#include "progs.h"

/* bpf_seq_printf_btf's prototype is gpl_only: a program whose license is
 * not GPL-compatible may not call it ("cannot call GPL-restricted function
 * from non-GPL compatible program", before its arguments are looked at).
 * vercheck's table lacked the flag, and accepted the call: a false accept
 * found by comparing the table's GPLOnly with every prototype's gpl_only
 * in the kernel's sources. */

char _license[] SEC("license") = "Proprietary";

// vercheck: reject "cannot call GPL-restricted function from non-GPL compatible program"
SEC("iter/task")
__naked int s16_gpl_seq_printf_btf(void)
{
	asm volatile(
		"r1 = 0;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 0;"
		"call %[bpf_seq_printf_btf];"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_seq_printf_btf) : __clobber_all);
}

/* bpf_get_current_pid_tgid is not gpl_only. */
// vercheck: accept
SEC("iter/task")
__naked int s16_gpl_free_helper(void)
{
	asm volatile(
		"call %[bpf_get_current_pid_tgid];"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_get_current_pid_tgid) : __clobber_all);
}
