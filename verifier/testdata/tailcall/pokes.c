/* Direct tail calls against the JIT's 1,024 poke descriptors (tailcall.go;
 * each program's verdict checked against the live 6.18 kernel, whose
 * refusal, ENOSPC after an accepted walk, the kernel comparison cannot
 * read: cilium/ebpf takes ENOSPC for a short log buffer). TestTailCallPokes.
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -I../../../testdata/progs -I/usr/include/x86_64-linux-gnu -c pokes.c -o pokes.o */
#include "progs.h"
char _license[] SEC("license") = "GPL";
struct { __uint(type, BPF_MAP_TYPE_PROG_ARRAY); __uint(max_entries, 4); __type(key, __u32); __type(value, __u32); } jmp SEC(".maps");

#define TCS(N, K) ".rept " #N "; r1 = r6; r2 = %[jmp] ll; r3 = " #K "; call %[bpf_tail_call]; .endr;"
#define PROG(NAME, BODY) SEC("tc") __naked int NAME(void) { asm volatile ("r6 = r1;" BODY "r0 = 0; exit;" \
	:: __imm_addr(jmp), __imm(bpf_tail_call), __imm(bpf_get_prandom_u32) : __clobber_all); }

__attribute__((naked, noinline, used)) static int sub600(void)
{ asm volatile ("r6 = r1;" TCS(600, 0) "r0 = 0; exit;" :: __imm_addr(jmp), __imm(bpf_tail_call) : "r0", "r1", "r2", "r3", "r4", "r5", "r6"); }

/* The limit, and one past it. */
PROG(pokes_1024, TCS(1024, 1))
PROG(pokes_1025, TCS(1025, 3))
/* Counted over the program with its subprograms. */
PROG(pokes_main500_sub600, TCS(500, 1) "r1 = r6; call sub600;")
PROG(pokes_main400_sub600, TCS(400, 1) "r1 = r6; call sub600;")
/* An index past the array, or not a constant: no direct jump. */
PROG(pokes_key_past_array, TCS(1100, 4))
PROG(pokes_variable_key, "call %[bpf_get_prandom_u32]; r7 = r0;" ".rept 2000; r1 = r6; r2 = %[jmp] ll; r3 = r7; call %[bpf_tail_call]; .endr;")
/* Two constants on two paths: poisoned; the same one on both: direct. */
PROG(pokes_two_keys, "call %[bpf_get_prandom_u32]; r7 = 1; if r0 == 0 goto 1f; r7 = 2; 1:" ".rept 1025; r1 = r6; r2 = %[jmp] ll; r3 = r7; call %[bpf_tail_call]; .endr;")
PROG(pokes_same_key_twice, "call %[bpf_get_prandom_u32]; r7 = 2; if r0 == 0 goto 1f; r7 = 2; 1:" ".rept 1025; r1 = r6; r2 = %[jmp] ll; r3 = r7; call %[bpf_tail_call]; .endr;")
/* Dead code is removed before the descriptors are made. */
PROG(pokes_dead, TCS(1000, 1) "r0 = 0; if r0 != 0 goto 1f; r0 = 0; exit; 1:" TCS(100, 1))
