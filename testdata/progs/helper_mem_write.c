// Helper buffers written in place (ARG_PTR_TO_MEM | MEM_WRITE, without
// MEM_UNINIT: bpf_fib_lookup's params, bpf_d_path's and bpf_snprintf's
// output) are read before the helper writes them: check_stack_range_initialized
// marks every slot of the buffer read, which keeps those slots alive in
// the checkpoints before the call, and then clobbers them, spills included.
// An ARG_PTR_TO_UNINIT_MEM buffer is only written (no read marks).
#include "progs.h"

char _license[] SEC("license") = "GPL";

// The spilled 5 does not survive the call: both branches are explored.
// vercheck: reject "invalid read from stack R10 off=8 size=8"
SEC("xdp")
__naked int fib_params_clobbered(void)
{
	asm volatile (
	"r6 = r1;"
	"r1 = 0;"
	"*(u64 *)(r10 -64) = r1;"
	"*(u64 *)(r10 -56) = r1;"
	"*(u64 *)(r10 -48) = r1;"
	"*(u64 *)(r10 -40) = r1;"
	"*(u64 *)(r10 -32) = r1;"
	"*(u64 *)(r10 -24) = r1;"
	"*(u64 *)(r10 -16) = r1;"
	"r1 = 5;"
	"*(u64 *)(r10 -8) = r1;"
	"r1 = r6;"
	"r2 = r10;"
	"r2 += -64;"
	"r3 = 64;"
	"r4 = 0;"
	"call %[bpf_fib_lookup];"
	"r1 = *(u64 *)(r10 -8);"
	"if r1 == 5 goto l0_%=;"
	"r0 = *(u64 *)(r10 +8);"
	"l0_%=:"
	"r0 = 2;"
	"exit;"
	:
	: __imm(bpf_fib_lookup)
	: __clobber_all);
}

// The checkpoint at the call's setup keeps the buffer's slots: the second
// path, whose stack differs there (4-byte spills against nothing), is not
// pruned and is walked again (found by the mutation fuzzer: with the
// buffer taken for write-only memory the slots were dead and the path was
// pruned, 27 insns against the kernel's 32).
// vercheck: accept
SEC("xdp")
__naked int fib_params_live(void)
{
	asm volatile (
	"r0 = 1;"
	"r2 = *(u32 *)(r1 +4);"
	"r6 = *(u32 *)(r1 +0);"
	"r7 = r6;"
	"r7 += 14;"
	"if r7 > r2 goto l0_%=;"
	"r8 = *(u8 *)(r6 +13);"
	"if r8 != 0x8 goto l1_%=;"
	"r3 = r6;"
	"r3 += 34;"
	"if r3 > r2 goto l0_%=;"
	"r2 = be16 r2;"
	"*(u16 *)(r10 -58) = r2;"
	"r2 = *(u32 *)(r6 +26);"
	"*(u32 *)(r10 -48) = r2;"
	"r2 = *(u32 *)(r6 +30);"
	"*(u32 *)(r10 -32) = r2;"
	"goto +0;"
	"l1_%=:"
	"r2 = r10;"
	"r2 += -64;"
	"r3 = 64;"
	"r4 = 0;"
	"call %[bpf_fib_lookup];"
	"l0_%=:"
	"exit;"
	:
	: __imm(bpf_fib_lookup)
	: __clobber_all);
}
