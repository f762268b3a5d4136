#include "progs.h"

/* Variable-offset stack writes over spilled registers and objects. Every
 * byte the write may reach turns its whole slot into plain data (the 6.18
 * stable scrub_special_slot in check_stack_write_var_off): the bytes it
 * cannot reach no longer read as a spill of a register that is gone. Only a
 * zero written over a spilled zero keeps the spill. Kernels without that
 * fix (upstream 4639eb9e30ab) only forget the register and leave the other
 * bytes as they were: the first expectation of a program whose verdict
 * depends on it is theirs (stablefix.VarWriteKeepsSpill), the "without"
 * line that of this machine's kernel. */

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

/* One byte in the middle of a spilled scalar: the slot becomes all MISC and
 * an 8-byte read gives an unknown scalar. */
// vercheck: reject "invalid size of register fill"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int fr_varoff_spill_mid(void)
{
	asm volatile (
	"r6 = 7;"
	"*(u64 *)(r10 - 32) = r6;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 1;"
	"r3 = r10;"
	"r3 += -30;"
	"r3 += r0;"
	"r4 = 5;"
	"*(u8 *)(r3 + 0) = r4;"
	"r0 = *(u64 *)(r10 - 32);"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* The write reaches the slot's top bytes: the remaining spill bytes must
 * not be read as a spill either. */
// vercheck: reject "invalid size of register fill"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int fr_varoff_spill_top(void)
{
	asm volatile (
	"r6 = 7;"
	"*(u64 *)(r10 - 32) = r6;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 1;"
	"r3 = r10;"
	"r3 += -26;"
	"r3 += r0;"
	"r4 = 5;"
	"*(u8 *)(r3 + 0) = r4;"
	"r0 = *(u32 *)(r10 - 28);"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* A 4-byte spill: its other bytes were never written and stay so. */
// vercheck: reject "invalid size of register fill"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int fr_varoff_narrow_spill(void)
{
	asm volatile (
	"r6 = 7;"
	"*(u32 *)(r10 - 32) = r6;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 1;"
	"r3 = r10;"
	"r3 += -26;"
	"r3 += r0;"
	"r4 = 5;"
	"*(u8 *)(r3 + 0) = r4;"
	"r0 = *(u64 *)(r10 - 32);"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* A spilled pointer is destroyed the same way; what is read back is a
 * scalar. */
// vercheck: reject "invalid size of register fill"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int fr_varoff_over_ptr(void)
{
	asm volatile (
	"*(u64 *)(r10 - 32) = r1;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 1;"
	"r3 = r10;"
	"r3 += -30;"
	"r3 += r0;"
	"r4 = 5;"
	"*(u8 *)(r3 + 0) = r4;"
	"r0 = *(u64 *)(r10 - 32);"
	"r0 &= 1;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* Zero written over spilled zeros keeps them: both slots still read as 0,
 * so the sum indexes the buffer safely. */
// vercheck: accept
SEC("socket")
__naked int fr_varoff_zero_over_zero_spill(void)
{
	asm volatile (
	"r6 = 0;"
	"*(u64 *)(r10 - 32) = r6;"
	"*(u64 *)(r10 - 24) = r6;"
	"*(u64 *)(r10 - 8) = r6;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 7;"
	"r3 = r10;"
	"r3 += -30;"
	"r3 += r0;"
	"r4 = 0;"
	"*(u8 *)(r3 + 0) = r4;"
	"r0 = *(u64 *)(r10 - 32);"
	"r1 = *(u64 *)(r10 - 24);"
	"r0 += r1;"
	"r2 = r10;"
	"r2 += -8;"
	"r2 += r0;"
	"r0 = *(u8 *)(r2 + 0);"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* Zero written over a spilled 3: that slot becomes MISC, so its value is
 * unknown and adding it to a stack pointer is refused. */
// vercheck: reject "invalid read from stack off -24+2 size 8"
// vercheck: reject "math between fp pointer and register with unbounded min value is not allowed" without varwrite-keeps-spill
SEC("socket")
__naked int fr_varoff_zero_over_nonzero(void)
{
	asm volatile (
	"r6 = 0;"
	"*(u64 *)(r10 - 8) = r6;"
	"*(u32 *)(r10 - 32) = r6;"
	"*(u32 *)(r10 - 28) = r6;"
	"r6 = 3;"
	"*(u64 *)(r10 - 24) = r6;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 7;"
	"r3 = r10;"
	"r3 += -30;"
	"r3 += r0;"
	"r4 = 0;"
	"*(u8 *)(r3 + 0) = r4;"
	"r0 = *(u64 *)(r10 - 24);"
	"r2 = r10;"
	"r2 += -8;"
	"r2 += r0;"
	"r0 = *(u8 *)(r2 + 0);"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

static __naked __attribute__((noinline, used)) int fr_varoff_cb(void)
{
	asm volatile (
	"r6 = r2;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 3;"
	"r6 += r0;"
	"r1 = 5;"
	"*(u8 *)(r6 + 1) = r1;"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* The common shape: a bpf_loop callback writes its caller's stack at a
 * variable offset, over a spilled scalar the caller reads back whole. */
// vercheck: reject "invalid size of register fill"
// vercheck: accept without varwrite-keeps-spill
SEC("socket")
__naked int fr_varoff_loop_cb(void)
{
	asm volatile (
	"r6 = 7;"
	"*(u64 *)(r10 - 32) = r6;"
	"r1 = 2;"
	"r2 = fr_varoff_cb ll;"
	"r3 = r10;"
	"r3 += -32;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = *(u64 *)(r10 - 32);"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}

/* An iterator slot is scrubbed too: its reference is then never released. */
// vercheck: reject "invalid read from stack off -8+2 size 8"
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak" without varwrite-keeps-spill
SEC("socket")
__naked int fr_varoff_over_iter(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 3;"
	"call %[bpf_iter_num_new];"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 1;"
	"r3 = r10;"
	"r3 += -8;"
	"r3 += r0;"
	"r4 = 5;"
	"*(u8 *)(r3 + 0) = r4;"
	"r0 = *(u64 *)(r10 - 8);"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_iter_num_new) : __clobber_all);
}

/* ... and it can no longer be destroyed. */
// vercheck: reject "expected an initialized iter_num as arg #0"
SEC("socket")
__naked int fr_varoff_over_iter_destroy(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 3;"
	"call %[bpf_iter_num_new];"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 1;"
	"r3 = r10;"
	"r3 += -8;"
	"r3 += r0;"
	"r4 = 5;"
	"*(u8 *)(r3 + 0) = r4;"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_destroy];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_iter_num_new), __imm(bpf_iter_num_destroy) : __clobber_all);
}

/* Only here so that the iterator kfuncs the assembly calls are declared in
 * the object's BTF. */
// vercheck: accept
SEC("socket")
int fr_varoff_iter_decls(void *ctx)
{
	struct bpf_iter_num it;

	bpf_iter_num_new(&it, 0, 1);
	bpf_iter_num_destroy(&it);
	return 0;
}

char _license[] SEC("license") = "GPL";
