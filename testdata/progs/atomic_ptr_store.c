#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} atomic_slots SEC(".maps");

/*
 * A privileged loader may add a pointer into memory with an atomic, as it
 * may store one: the "leaks addr" check binds unprivileged loads only.
 */
// vercheck: accept
SEC("socket")
__naked int atomic_add_pointer_into_map(void)
{
	asm volatile (
	"r7 = r1;"
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[atomic_slots] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"lock *(u64 *)(r0 + 0) += r10;"
	"r7 = atomic_fetch_or((u64 *)(r0 + 0), r7);"
	"1: r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm_addr(atomic_slots)
	: __clobber_all);
}

/* The target's type is still checked: no atomics on the context. */
// vercheck: reject "BPF_ATOMIC stores into R1 ctx is not allowed"
SEC("socket")
__naked int atomic_pointer_into_ctx(void)
{
	asm volatile (
	"lock *(u64 *)(r1 + %[cb0]) += r10;"
	"r0 = 0;"
	"exit;"
	:
	: __imm_const(cb0, offsetof(struct __sk_buff, cb[0]))
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";
