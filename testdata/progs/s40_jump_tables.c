#include "progs.h"
char _license[] SEC("license") = "GPL";

/* Jump tables (clang 21 for cpu v4: a switch compiled to "gotox", its
 * targets in a ".jumptables" section whose table the program addresses with
 * a 64-bit immediate load). libbpf 1.8 makes each table a
 * BPF_MAP_TYPE_INSN_ARRAY map when it relocates the program; the 6.18
 * kernel has no such map type, so libbpf refuses every program holding such
 * a load, reached or not, in its own code or a subprogram's ("can't create
 * jump table", EINVAL), and the kernel never sees it; 6.18 does not know
 * gotox either ("unknown opcode 0d"). cilium/ebpf refused to open the
 * object. The tables are written by hand here (clang 19 emits none) and the
 * gotox instruction as raw bytes (BPF_JMP|BPF_JA|BPF_X, dst r1).
 * The programs libbpf refuses carry no expectation tag (no kernel verdict
 * exists for them); TestJumpTables checks them. */
asm(".pushsection .jumptables,\"\",@progbits\n"
    ".globl s40_jt0\n"
    "s40_jt0:\n"
    ".quad 0\n"
    ".quad 8\n"
    ".size s40_jt0, 16\n"
    ".popsection\n");

SEC("socket")
__naked int s40_jump_table(void)
{
	asm volatile ("r1 = s40_jt0 ll; r1 = *(u64 *)(r1 + 0); r0 = 0; exit;" ::: __clobber_all);
}

SEC("socket")
__naked int s40_jump_table_unreached(void)
{
	asm volatile ("r0 = 0; exit; r1 = s40_jt0 ll; exit;" ::: __clobber_all);
}

static __naked __noinline __attribute__((used)) int s40_jt_sub(void)
{
	asm volatile ("r1 = s40_jt0 ll; r0 = 0; exit;" ::: __clobber_all);
}

SEC("socket")
__naked int s40_jump_table_subprog(void)
{
	asm volatile ("call s40_jt_sub; r0 = 0; exit;" ::: __clobber_all);
}

// vercheck: reject "unknown opcode 0d"
SEC("socket")
__naked int s40_gotox(void)
{
	asm volatile ("r1 = 0; .8byte 0x000000000000010d; r0 = 0; exit;" ::: __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s40_no_jump_table(void)
{
	asm volatile ("r0 = 0; exit;" ::: __clobber_all);
}
