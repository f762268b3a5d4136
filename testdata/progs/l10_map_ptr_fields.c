#include "progs.h"

/* A load through a map pointer reads the map's kernel struct as a BTF
 * walk (check_ptr_to_map_access). A field that points to anything but a
 * struct (struct bpf_map's excl_prog_sha, a char *, at offset 288 in
 * 6.18) reads as untrusted read-only memory of size 0, as through any BTF
 * pointer (mark_btf_ld_reg): loads through it are the kernel's probe
 * reads, and its union holds no map pointer for a "__map" kfunc argument.
 * vercheck typed it as a BTF pointer: a false reject of the load and the
 * other message for the kfunc (found by vercheck-mutate, seed 20261210,
 * mutant 23770). */

#define AR_MAP_TYPE_ARENA 33
#define AR_F_MMAPABLE 1024

extern void *bpf_arena_alloc_pages(void *map, void *addr, __u32 page_cnt, int node_id, __u64 flags) __ksym;

struct {
	__uint(type, AR_MAP_TYPE_ARENA);
	__uint(map_flags, AR_F_MMAPABLE);
	__uint(max_entries, 8);
} mf_arena SEC(".maps");

/* Gives the object the kfunc's BTF. */
// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: accept without no-arena-kfuncs
SEC("syscall")
int l10_mf_alloc(void *ctx)
{
	void *page = bpf_arena_alloc_pages(&mf_arena, NULL, 1, -1, 0);

	return page != 0;
}

// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "pointer in R1 isn't map pointer" without no-arena-kfuncs
SEC("syscall")
__naked int l10_mf_char_ptr_as_map(void)
{
	asm volatile (
	"r1 = %[mf_arena] ll;"
	"r1 = *(u64 *)(r1 + 288);"
	"r2 = 0; r3 = 1; r4 = -1; r5 = 0; call %[bpf_arena_alloc_pages];"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(mf_arena), __imm(bpf_arena_alloc_pages)
	: __clobber_all);
}

// vercheck: accept
SEC("syscall")
__naked int l10_mf_char_ptr_read(void)
{
	asm volatile (
	"r1 = %[mf_arena] ll;"
	"r1 = *(u64 *)(r1 + 288);"
	"r0 = *(u8 *)(r1 + 3);"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(mf_arena)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
