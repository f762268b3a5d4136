#include "progs.h"

/* The arena kfuncs: bpf_arena_alloc_pages, bpf_arena_free_pages and
 * bpf_arena_reserve_pages take the arena map as a "__map" argument
 * (a register holding a map pointer, trusted, pointing to a struct
 * bpf_map), ignore the address argument ("__ign"), and are sleepable
 * in 6.18. The allocation returns a void __arena pointer: a number,
 * which the program casts to an arena pointer before use.
 * Some builds do not register the arena kfuncs (stablefix.NoArenaKfuncs:
 * 6.18.44-fc-v1147, which refuses arena maps too): every call is "calling
 * kernel function ... is not allowed" there, before its arguments are
 * looked at; the "without" verdicts are upstream's. */

#define AR_MAP_TYPE_ARENA 33
#define AR_F_MMAPABLE 1024

extern void *bpf_arena_alloc_pages(void *map, void *addr, __u32 page_cnt, int node_id, __u64 flags) __ksym;
extern void bpf_arena_free_pages(void *map, void *ptr, __u32 page_cnt) __ksym;
extern int bpf_arena_reserve_pages(void *map, void *ptr, __u32 page_cnt) __ksym;

/* bpf_arena_alloc_pages(r1, NULL, 1, NUMA_NO_NODE, 0) */
#define ALLOC_ONE_PAGE "r2 = 0; r3 = 1; r4 = -1; r5 = 0; call %[bpf_arena_alloc_pages];"

struct {
	__uint(type, AR_MAP_TYPE_ARENA);
	__uint(map_flags, AR_F_MMAPABLE);
	__uint(max_entries, 8);
} ak_arena SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} ak_array SEC(".maps");

/* In C, which also gives the object the BTF of the three kfuncs (the
 * loader resolves the calls of the naked functions below with it). */
// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: accept without no-arena-kfuncs
SEC("syscall")
int ak_alloc_free(void *ctx)
{
	void *page = bpf_arena_alloc_pages(&ak_arena, NULL, 1, -1, 0);
	__u64 __attribute__((address_space(1))) *p;

	if (!page)
		return 0;
	/* The compiler casts an __arena pointer to the kernel's address
	 * space where it is dereferenced. */
	p = (__u64 __attribute__((address_space(1))) *)page;
	*p = 42;
	bpf_arena_free_pages(&ak_arena, page, 1);
	return bpf_arena_reserve_pages(&ak_arena, NULL, 1) & 1;
}

/* What the allocation returns is a number until it is cast. */
// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "R0 invalid mem access 'scalar'" without no-arena-kfuncs
SEC("syscall")
__naked int ak_alloc_no_cast(void)
{
	asm volatile (
	"r1 = %[ak_arena] ll;"
	ALLOC_ONE_PAGE
	"if r0 == 0 goto l0_%=;"
	"r1 = 42;"
	"*(u64 *)(r0 + 0) = r1;"
"l0_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_alloc_pages) : __clobber_all);
}

// vercheck: reject "calling kernel function bpf_arena_reserve_pages is not allowed"
// vercheck: accept without no-arena-kfuncs
SEC("syscall")
__naked int ak_reserve(void)
{
	asm volatile (
	"r1 = %[ak_arena] ll;"
	"r2 = 4096;"
	"r3 = 2;"
	"call %[bpf_arena_reserve_pages];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_reserve_pages) : __clobber_all);
}

// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "program must be sleepable to call sleepable kfunc bpf_arena_alloc_pages" without no-arena-kfuncs
SEC("xdp")
__naked int ak_alloc_not_sleepable(void)
{
	asm volatile (
	"r1 = %[ak_arena] ll;"
	ALLOC_ONE_PAGE
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_alloc_pages) : __clobber_all);
}

/* A stack pointer holds no map pointer. */
// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "pointer in R1 isn't map pointer" without no-arena-kfuncs
SEC("syscall")
__naked int ak_map_stack(void)
{
	asm volatile (
	"r2 = %[ak_arena] ll;"
	"r1 = r10;"
	"r1 += -8;"
	ALLOC_ONE_PAGE
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_alloc_pages) : __clobber_all);
}

// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "pointer in R1 isn't map pointer" without no-arena-kfuncs
SEC("syscall")
__naked int ak_map_number(void)
{
	asm volatile (
	"r2 = %[ak_arena] ll;"
	"r1 = 5;"
	ALLOC_ONE_PAGE
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_alloc_pages) : __clobber_all);
}

// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "Possibly NULL pointer passed to trusted arg0" without no-arena-kfuncs
SEC("syscall")
__naked int ak_map_null(void)
{
	asm volatile (
	"r2 = %[ak_arena] ll;"
	"r1 = 0;"
	ALLOC_ONE_PAGE
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_alloc_pages) : __clobber_all);
}

/* A map value carries its map but is not trusted. */
// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "R1 must be referenced or trusted" without no-arena-kfuncs
SEC("syscall")
__naked int ak_map_value(void)
{
	asm volatile (
	"r1 = %[ak_arena] ll;"
	"r1 = %[ak_array] ll;"
	"r2 = r10;"
	"r2 += -4;"
	"r3 = 0;"
	"*(u32 *)(r10 - 4) = r3;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r1 = r0;"
	ALLOC_ONE_PAGE
"l0_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm_addr(ak_array), __imm(bpf_map_lookup_elem),
	   __imm(bpf_arena_alloc_pages)
	: __clobber_all);
}

/* Any map will do for the verifier (the kfunc itself refuses what is
 * not an arena at run time). */
// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: accept without no-arena-kfuncs
SEC("syscall")
__naked int ak_map_array(void)
{
	asm volatile (
	"r1 = %[ak_array] ll;"
	ALLOC_ONE_PAGE
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_array), __imm(bpf_arena_alloc_pages) : __clobber_all);
}

/* The page count is a scalar. */
// vercheck: reject "calling kernel function bpf_arena_alloc_pages is not allowed"
// vercheck: reject "R3 is not a scalar" without no-arena-kfuncs
SEC("syscall")
__naked int ak_count_pointer(void)
{
	asm volatile (
	"r1 = %[ak_arena] ll;"
	"r2 = 0;"
	"r3 = r10;"
	"r4 = -1;"
	"r5 = 0;"
	"call %[bpf_arena_alloc_pages];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_alloc_pages) : __clobber_all);
}

/* The address is ignored: anything goes, a context pointer included. */
// vercheck: reject "calling kernel function bpf_arena_free_pages is not allowed"
// vercheck: accept without no-arena-kfuncs
SEC("syscall")
__naked int ak_free_any_address(void)
{
	asm volatile (
	"r2 = r1;"
	"r1 = %[ak_arena] ll;"
	"r3 = 1;"
	"call %[bpf_arena_free_pages];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(ak_arena), __imm(bpf_arena_free_pages) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
