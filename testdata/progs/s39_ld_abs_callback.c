#include "progs.h"

/* A legacy packet load (LD_ABS/LD_IND) inside a bpf_loop callback: a load
 * that fails returns 0 from the callback (bpf_gen_ld_abs's hidden exit),
 * which check_ld_abs explores as the callback's return (prepare_func_exit
 * with r0 = 0). The callback's return is made precise from the load, and
 * the walk starts before it: an r0 the callback set before the load ends
 * the walk, and the 6.18 kernel accepts. Where nothing in the callback
 * sets r0 first, the walk reaches the callback's entry still wanting r0,
 * the kernel's "verifier bug: callback unexpected regs 1"
 * (verifier/testdata/kernelfault/ld_abs_callback.c). vercheck refused every
 * such program with 7.x's "cannot use BPF_LD_[ABS|IND] within callback"
 * (four false rejects, found by session 39's fuzz seeds). */
char _license[] SEC("license") = "GPL";

/* LD_ABS_W0 is "r0 = *(u32 *)skb[0]", which clang's assembler cannot
 * write. */
#define LD_ABS_W0 ".8byte 0x0000000000000020;"

/* The callback reads the context the main program spilled (r2 is the
 * callback's context: the address of fp-8 of the caller). */
__attribute__((naked, noinline, used)) static int s39_cb_r0_zero(void)
{
	asm volatile ("r6 = *(u64 *)(r2 + 0); r0 = 0;" LD_ABS_W0 "r0 = 0; exit;" ::: __clobber_all);
}

__attribute__((naked, noinline, used)) static int s39_cb_r0_seven(void)
{
	asm volatile ("r6 = *(u64 *)(r2 + 0); r0 = 7;" LD_ABS_W0 "r0 = 0; exit;" ::: __clobber_all);
}

__attribute__((naked, noinline, used)) static int s39_cb_r0_helper(void)
{
	asm volatile ("r6 = *(u64 *)(r2 + 0); call %[bpf_get_prandom_u32];" LD_ABS_W0 "r0 = 0; exit;"
		      :: __imm(bpf_get_prandom_u32) : __clobber_all);
}

/* The loaded word decides the callback's return, which bpf_loop needs in
 * [0, 1]: the successful load's r0 is unknown. */
__attribute__((naked, noinline, used)) static int s39_cb_returns_load(void)
{
	asm volatile ("r6 = *(u64 *)(r2 + 0); r0 = 0;" LD_ABS_W0 "exit;" ::: __clobber_all);
}

/* Each main program spills its context to fp-8 and runs its callback once. */
// vercheck: accept
SEC("socket")
__naked int s39_ld_abs_cb_r0_zero(void)
{
	asm volatile ("*(u64 *)(r10 - 8) = r1;"
		      "r3 = r10;"
		      "r3 += -8;"
		      "r1 = 1;"
		      "r2 = s39_cb_r0_zero ll;"
		      "r4 = 0;"
		      "call %[bpf_loop];"
		      "r0 = 0;"
		      "exit;" :: __imm(bpf_loop) : __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s39_ld_abs_cb_r0_seven(void)
{
	asm volatile ("*(u64 *)(r10 - 8) = r1;"
		      "r3 = r10;"
		      "r3 += -8;"
		      "r1 = 1;"
		      "r2 = s39_cb_r0_seven ll;"
		      "r4 = 0;"
		      "call %[bpf_loop];"
		      "r0 = 0;"
		      "exit;" :: __imm(bpf_loop) : __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s39_ld_abs_cb_r0_helper(void)
{
	asm volatile ("*(u64 *)(r10 - 8) = r1;"
		      "r3 = r10;"
		      "r3 += -8;"
		      "r1 = 1;"
		      "r2 = s39_cb_r0_helper ll;"
		      "r4 = 0;"
		      "call %[bpf_loop];"
		      "r0 = 0;"
		      "exit;" :: __imm(bpf_loop) : __clobber_all);
}

// vercheck: reject "At callback return the register R0 has unknown scalar value should have been in [0, 1]"
SEC("socket")
__naked int s39_ld_abs_cb_returns_load(void)
{
	asm volatile ("*(u64 *)(r10 - 8) = r1;"
		      "r3 = r10;"
		      "r3 += -8;"
		      "r1 = 1;"
		      "r2 = s39_cb_returns_load ll;"
		      "r4 = 0;"
		      "call %[bpf_loop];"
		      "r0 = 0;"
		      "exit;" :: __imm(bpf_loop) : __clobber_all);
}
