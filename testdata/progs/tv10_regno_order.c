// Register numbers above r10, refused ("R14 is invalid") when the
// kernel's handler of the instruction reaches them with check_reg_arg:
// loads, stores and atomics check their source register before their
// destination, so an uninitialised source is refused first. Encoded by
// hand: no assembler writes register 11 and above.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// *(u32 *)(r14 -1) = r6: check_store_reg reads r6 first.
// vercheck: reject "R6 !read_ok"
SEC("socket")
__naked int tv10_regno_stx_src_first(void)
{
	asm volatile (
	".8byte 0x00000000ffff6e63;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// The same store with r6 set: now the destination is reached.
// vercheck: reject "R14 is invalid"
SEC("socket")
__naked int tv10_regno_stx_dst(void)
{
	asm volatile (
	"r6 = 0;"
	".8byte 0x00000000ffff6e63;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// r11 = *(u8 *)(r3 +0): check_load_mem reads r3 first.
// vercheck: reject "R3 !read_ok"
SEC("socket")
__naked int tv10_regno_ldx_src_first(void)
{
	asm volatile (
	".8byte 0x0000000000003b71;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// r0 = atomic_fetch_or((u32 *)(r12 +0), r0): check_atomic_rmw reads r0
// first.
// vercheck: reject "R0 !read_ok"
SEC("socket")
__naked int tv10_regno_atomic_src_first(void)
{
	asm volatile (
	".8byte 0x0000004100000cc3;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// r12 += r3: check_alu_op reads the source r3 before the destination.
// vercheck: reject "R3 !read_ok"
SEC("socket")
__naked int tv10_regno_alu_src_first(void)
{
	asm volatile (
	".8byte 0x0000000000003c0f;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}
