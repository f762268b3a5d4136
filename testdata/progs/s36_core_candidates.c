#include "progs.h"
#include <bpf/bpf_core_read.h>

/* CO-RE relocations libbpf and cilium/ebpf resolve differently (session
 * 36's differential against libbpf 1.8; relo_core.c against btf/core.go):
 * libbpf takes candidates of the local type's own kind only (a local union
 * is no candidate for the kernel's struct __sk_buff), compares array
 * element types (a local int[64] is not the kernel's struct file *[64]),
 * and matches a struct behind a pointer by name and kind alone in
 * bpf_core_type_matches. vercheck relocated as cilium/ebpf and accepted
 * each program below, which libbpf's relocation makes the kernel refuse.
 * It now relocates as libbpf (for an object), and accepts only what both
 * loaders' relocations make acceptable. */
char _license[] SEC("license") = "GPL";

#define PAI __attribute__((preserve_access_index))
#define BAD() asm volatile ("r0 = 0; r0 = *(u64 *)(r0 + 0);" ::: "r0")

union __sk_buff___u { __u32 len; __u32 mark; } PAI;

/* libbpf finds no union __sk_buff: the load is poisoned. */
// vercheck: reject "invalid func unknown#195896080"
SEC("tc")
int s36_union_candidate_load(struct __sk_buff *skb)
{
	return ((union __sk_buff___u *)skb)->mark;
}

/* ... and the field does not exist for it. */
// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("tc")
int s36_union_candidate_exists(struct __sk_buff *skb)
{
	if (!bpf_core_field_exists(((union __sk_buff___u *)skb)->mark))
		BAD();
	return 0;
}

struct files_struct___a { int fd_array[64]; } PAI;

/* An int array is no array of pointers to libbpf. */
// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("kprobe/s36")
int s36_array_elem_compat(void *ctx)
{
	if (!bpf_core_field_exists(((struct files_struct___a *)0)->fd_array))
		BAD();
	return 0;
}

/* A struct dentry the object defines with a member the kernel's lacks:
 * behind a pointer libbpf compares its name and kind only. */
struct dentry { int s36_not_in_the_kernel; };
struct renamedata___a { struct dentry *old_parent; };

// vercheck: accept
SEC("kprobe/s36")
int s36_dentry_defined(void *ctx)
{
	struct dentry d = {};

	asm volatile ("" :: "r"(&d) : "memory");
	return 0;
}

// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("kprobe/s36")
int s36_type_matches_behind_ptr(void *ctx)
{
	if (bpf_core_type_matches(struct renamedata___a))
		BAD();
	return 0;
}

enum s36_missing___l { S36_NOT_AN_ENUMERATOR___l = 1 };

/* A missing enumerator's 64-bit immediate load is poisoned: cilium/ebpf
 * writes r10 = 0xbad2310 ll, libbpf 1.8 two calls of the poison helper
 * ("invalid func unknown#195896080"); vercheck keeps cilium/ebpf's
 * encoding, the one the shared corpus's kernel figures were measured
 * with. */
// vercheck: reject "frame pointer is read only"
SEC("kprobe/s36")
int s36_enum_missing_ldimm64(void *ctx)
{
	return bpf_core_enum_value(enum s36_missing___l, S36_NOT_AN_ENUMERATOR___l);
}
