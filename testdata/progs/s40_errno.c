#include "progs.h"
char _license[] SEC("license") = "GPL";

/* The error numbers bpf(BPF_PROG_LOAD) answers rejections with where vercheck's
 * table said otherwise (session 40: an audit of every opcode byte's static
 * checks and of every rejection message against its return). Verdict and
 * message always agreed; TestErrnoLikeKernel compares the errnos live. Raw
 * encodings are .quad directives: clang's assembler cannot write the fields. */
struct bpf_iter_num { __u64 __opaque[1]; } __attribute__((aligned(8)));
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

/* BPF_JA with src_reg=1: do_check "BPF_JA uses reserved fields", kernel -EINVAL */
// vercheck: reject "BPF_JA uses reserved fields"
SEC("socket") __naked int s40_ja_res(void) { asm volatile ("r0 = 0; .quad 0x0000000000001005; exit;" ::: __clobber_all); }
/* JEQ imm with src_reg=1: "BPF_JMP/JMP32 uses reserved fields" -EINVAL */
// vercheck: reject "BPF_JMP/JMP32 uses reserved fields"
SEC("socket") __naked int s40_jmp_res(void) { asm volatile ("r0 = 0; .quad 0x0000000000001015; exit;" ::: __clobber_all); }
/* call with src_reg=3: "BPF_CALL uses reserved fields" -EINVAL */
// vercheck: reject "BPF_CALL uses reserved fields"
SEC("socket") __naked int s40_call_res(void) { asm volatile ("r0 = 0; .quad 0x0000000700003085; exit;" ::: __clobber_all); }
/* exit with src_reg=1: "BPF_EXIT uses reserved fields" -EINVAL */
// vercheck: reject "BPF_EXIT uses reserved fields"
SEC("socket") __naked int s40_exit_res(void) { asm volatile ("r0 = 0; .quad 0x0000000000001095;" ::: __clobber_all); }
/* atomic DW on stack with imm=7: "BPF_ATOMIC uses invalid atomic opcode 07" -EINVAL */
// vercheck: reject "BPF_ATOMIC uses invalid atomic opcode 07"
SEC("socket") __naked int s40_atomic_op(void) { asm volatile ("r2 = 1; *(u64 *)(r10 - 8) = r2; .quad 0x00000007fff82adb; r0 = 0; exit;" ::: __clobber_all); }
/* atomic B (0xcb) add: "invalid atomic operand size" -EINVAL */
// vercheck: reject "invalid atomic operand size"
SEC("socket") __naked int s40_atomic_size(void) { asm volatile ("r2 = 1; *(u64 *)(r10 - 8) = r2; .quad 0x00000000fff82acb; r0 = 0; exit;" ::: __clobber_all); }
/* may_goto with imm=1: "invalid may_goto imm 1" -EINVAL */
// vercheck: reject "invalid may_goto imm 1"
SEC("socket") __naked int s40_maygoto_imm(void) { asm volatile ("r0 = 0; .quad 0x00000001000000e5; exit;" ::: __clobber_all); }
/* r2 /= 0 (K): "div by zero" -EINVAL */
// vercheck: reject "div by zero"
SEC("socket") __naked int s40_div0(void) { asm volatile ("r2 = 1; .quad 0x0000000000000237; r0 = 0; exit;" ::: __clobber_all); }
/* ld_imm64 src_reg=7: "unrecognized bpf_ld_imm64 insn" -EINVAL */
// vercheck: reject "unrecognized bpf_ld_imm64 insn"
SEC("socket") __naked int s40_ld_unrec(void) { asm volatile (".quad 0x0000000000007218; .quad 0; r0 = 0; exit;" ::: __clobber_all); }
/* kfunc call imm=1: "kernel btf_id 1 is not a function" -EINVAL */
// vercheck: reject "kernel btf_id 1 is not a function"
SEC("socket") __naked int s40_kf_notfunc(void) { asm volatile (".quad 0x0000000100002085; r0 = 0; exit;" ::: __clobber_all); }
/* kfunc call off=-1: "negative offset disallowed ..." / "failed to find BTF for kernel function" -EINVAL */
// vercheck: reject "failed to find BTF for kernel function"
SEC("socket") __naked int s40_kf_negoff(void) { asm volatile (".quad 0x00000001ffff2085; r0 = 0; exit;" ::: __clobber_all); }
/* first insn code 0x00 with line info at it: "Invalid insn code at line_info[0].insn_off" -EINVAL */
// vercheck: reject "Invalid insn code at line_info[0].insn_off"
SEC("socket") __naked int s40_linfo_code0(void) { asm volatile (".quad 0x0000000000000000; r0 = 0; exit;" ::: __clobber_all); }

/* check_alu_op: a constant shift out of range */
// vercheck: reject "invalid shift 64"
SEC("socket") __naked int s40_invalid_shift(void)
{ asm volatile ("r0 = 0; .quad 0x0000004000000067; exit;" ::: __clobber_all); }

/* prepare_func_exit: a subprogram returns its frame's address */
__attribute__((used)) static __naked void s40_ret_fp(void)
{ asm volatile ("r0 = r10; r0 += -8; exit;" ::: __clobber_all); }
// vercheck: reject "cannot return stack pointer to the caller"
SEC("socket") __naked int s40_ret_stack_ptr(void)
{ asm volatile ("call s40_ret_fp; r0 = 0; exit;" ::: __clobber_all); }

/* process_iter_arg: the context for an iterator */
// vercheck: reject "arg#0 expected pointer to an iterator on stack"
SEC("socket") __naked int s40_iter_not_stack(void)
{ asm volatile ("call %[bpf_iter_num_next]; r0 = 0; exit;" :: __imm(bpf_iter_num_next) : __clobber_all); }
// vercheck: accept
SEC("socket") int s40_iter_ok(void *ctx)
{ struct bpf_iter_num it; int *v, s = 0; bpf_iter_num_new(&it, 0, 3); while ((v = bpf_iter_num_next(&it))) s += *v; bpf_iter_num_destroy(&it); return s & 1; }

/* btf_prepare_func_args: an unknown argument tag (EOPNOTSUPP, passed on) */
__attribute__((noinline, weak)) int s40_g_bogus_tag(int *p __attribute__((btf_decl_tag("arg:bogus")))) { return p ? 1 : 0; }
// vercheck: reject "Caller passes invalid args into func#1 ('s40_g_bogus_tag')"
SEC("tc") __naked int s40_unknown_arg_tag(void)
{ asm volatile ("call s40_g_bogus_tag; r0 = 0; exit;" ::: __clobber_all); }

/* check_stack_slot_within_bounds: a variable-offset read starting below the
 * frame is EACCES, though its message is the one whose end above the frame
 * is EINVAL */
// vercheck: reject "invalid variable-offset read from stack R1 var_off=(0x0; 0x8) off=-520 size=8"
SEC("socket") __naked int s40_stack_below_frame(void)
{ asm volatile ("call %[bpf_get_prandom_u32]; r0 &= 8; r1 = r10; r1 += -520; r1 += r0; r0 = *(u64 *)(r1 + 0); r0 = 0; exit;" :: __imm(bpf_get_prandom_u32) : __clobber_all); }
// vercheck: reject "invalid variable-offset read from stack R1 var_off=(0x0; 0x8) off=-8 size=8"
SEC("socket") __naked int s40_stack_above_frame(void)
{ asm volatile ("call %[bpf_get_prandom_u32]; r0 &= 8; r1 = r10; r1 += -8; r1 += r0; r0 = *(u64 *)(r1 + 0); r0 = 0; exit;" :: __imm(bpf_get_prandom_u32) : __clobber_all); }

/* check_packet_access: a pointer compared past pkt_end (EINVAL, not EACCES) */
// vercheck: reject "R2 offset is outside of the packet"
SEC("xdp") __naked int s40_pkt_past_end(void)
{ asm volatile ("r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); if r2 > r3 goto 1f; r0 = 0; exit; 1: r0 = *(u8 *)(r2 + 0); r0 = 0; exit;" ::: __clobber_all); }

/* btf_check_func_arg_match: a global function's memory argument the
 * caller's stack does not hold is EINVAL, whatever check_mem_reg's own
 * errno (here the stack bounds' EACCES) */
__attribute__((noinline)) int s40_g_read_int(int *p) { return p ? *p : 0; }
// vercheck: reject "Caller passes invalid args into func#1 ('s40_g_read_int')"
SEC("socket") __naked int s40_global_mem_fp(void)
{ asm volatile ("r1 = r10; call s40_g_read_int; r0 = 0; exit;" ::: __clobber_all); }
