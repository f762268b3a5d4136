#include "progs.h"
char _license[] SEC("license") = "GPL";

/* A global function's address taken with a 64-bit immediate load: clang
 * relocates it against the function's own symbol with 0 in the immediate
 * (a static function's goes against the section, its offset in the
 * immediate). libbpf adds the symbol's value (RELO_SUBPROG_ADDR) and the
 * kernel refuses the global callback (check_ld_imm: "callback function not
 * static"); cilium/ebpf v0.22 looked the function up at offset 0 and
 * linked the first function of .text instead, a valid static callback
 * here, so vercheck accepted. Found by session 35's review of tail calls
 * and stack depth. */

static __naked __attribute__((noinline, used)) int s35_first_in_text(void)
{
	asm volatile ("r0 = 0; exit;" ::: __clobber_all);
}

__attribute__((noinline)) int s35_global_cb(__u32 idx, void *data)
{
	return 0;
}

static __attribute__((noinline, used)) int s35_static_cb(__u32 idx, void *data)
{
	return 1;
}

// vercheck: reject "callback function not static"
SEC("tc")
__naked int s35_global_cb_addr(void)
{
	asm volatile (
	"r1 = 2;"
	"r2 = s35_global_cb ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}

/* the static callback after it in .text: its own offset is the immediate */
// vercheck: accept
SEC("tc")
__naked int s35_static_cb_addr(void)
{
	asm volatile (
	"r1 = 2;"
	"r2 = s35_static_cb ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_loop];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_loop) : __clobber_all);
}
