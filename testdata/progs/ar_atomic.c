#include "progs.h"

/* Atomic instructions on the arena. The verifier asks the JIT which it
 * can guard against faults (atomic_ptr_type_ok, bpf_jit_supports_insn):
 * on x86-64 every one but the fetching and, or and xor of 32 and 64
 * bits, which it emits as a compare-and-exchange loop. */

#define AR_MAP_TYPE_ARENA 33
#define AR_F_MMAPABLE 1024

struct {
	__uint(type, AR_MAP_TYPE_ARENA);
	__uint(map_flags, AR_F_MMAPABLE);
	__uint(max_entries, 1);
} aa_arena SEC(".maps");

/* An arena pointer in r1 and 1 in r2, then op. */
#define ARENA_ATOMIC(op)							\
	asm volatile (								\
	"r1 = %[aa_arena] ll;"							\
	"r1 = 0;"								\
	"r1 = addr_space_cast(r1, 0, 1);"					\
	"r2 = 1;"								\
	op									\
	"r0 = 0;"								\
	"exit;"									\
	:: __imm_addr(aa_arena) : __clobber_all)

// vercheck: reject "BPF_ATOMIC stores into R1 arena is not allowed"
SEC("xdp")
__naked int aa_fetch_and64(void) { ARENA_ATOMIC("r2 = atomic_fetch_and((u64 *)(r1 + 0), r2);"); }
// vercheck: reject "BPF_ATOMIC stores into R1 arena is not allowed"
SEC("xdp")
__naked int aa_fetch_or32(void) { ARENA_ATOMIC("w2 = atomic_fetch_or((u32 *)(r1 + 0), w2);"); }
// vercheck: reject "BPF_ATOMIC stores into R1 arena is not allowed"
SEC("xdp")
__naked int aa_fetch_xor64(void) { ARENA_ATOMIC("r2 = atomic_fetch_xor((u64 *)(r1 + 0), r2);"); }
// vercheck: accept
SEC("xdp")
__naked int aa_and32(void) { ARENA_ATOMIC("lock *(u32 *)(r1 + 0) &= w2;"); }
// vercheck: accept
SEC("xdp")
__naked int aa_xchg64(void) { ARENA_ATOMIC("r2 = xchg_64(r1 + 0, r2);"); }
/* Load-acquire and store-release (not in clang-19's assembler). */
// vercheck: accept
SEC("xdp")
__naked int aa_load_acquire64(void) { ARENA_ATOMIC(".byte 0xdb, 0x12; .short 0; .long 0x100;"); }
// vercheck: accept
SEC("xdp")
__naked int aa_store_release64(void) { ARENA_ATOMIC(".byte 0xdb, 0x21; .short 0; .long 0x110;"); }
// vercheck: accept
SEC("xdp")
__naked int aa_load_acquire8(void) { ARENA_ATOMIC(".byte 0xd3, 0x12; .short 0; .long 0x100;"); }

char _license[] SEC("license") = "GPL";
