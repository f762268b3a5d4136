#include "progs.h"

/* Reads of stack slots that hold an object (a dynptr, an iterator) rather
 * than data. A load from one is refused byte by byte
 * (check_stack_read_fixed_off: "invalid read from stack off"); a helper
 * given a range of the stack that covers one is refused by
 * check_stack_range_initialized, at a constant offset and at a variable
 * one ("var_off"). Uninitialised bytes beside them are not the reason:
 * a privileged program may read those. */

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

struct s22_key16 {
	__u64 a, b;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, struct s22_key16);
	__type(value, __u64);
} s22_slot_map SEC(".maps");

char s22_slot_buf[16];

/* A load from the first slot of a dynptr. */
// vercheck: reject "invalid read from stack off -16+0 size 8"
SEC("tc")
__naked int s22_load_dynptr_slot(void)
{
	asm volatile (
	"r1 = %[buf] ll;"
	"r2 = 16;"
	"r3 = 0;"
	"r4 = r10;"
	"r4 += -16;"
	"call %[from_mem];"
	"r0 = *(u64 *)(r10 - 16);"
	"r0 = 0;"
	"exit;"
	:: [buf]"i"(s22_slot_buf), [from_mem]"i"(BPF_FUNC_dynptr_from_mem) : "memory");
}

/* A one-byte load from an iterator's slot. */
// vercheck: reject "invalid read from stack off -8+0 size 1"
SEC("tc")
int s22_load_iter_slot(struct __sk_buff *skb)
{
	struct bpf_iter_num it;
	int r;

	bpf_iter_num_new(&it, 0, 4);
	asm volatile ("%[r] = *(u8 *)(r10 - 8);" : [r]"=r"(r) :: "memory");
	bpf_iter_num_destroy(&it);
	return r;
}

/* A helper reading a map key that overlaps the iterator. */
// vercheck: reject "invalid read from stack R2 off -16+8 size 16"
SEC("tc")
__naked int s22_helper_reads_iter(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 4;"
	"call bpf_iter_num_new;"
	"r1 = %[map] ll;"
	"r2 = r10;"
	"r2 += -16;"
	"r3 = r10;"
	"r3 += -32;"
	"r4 = 0;"
	"*(u64 *)(r10 - 32) = r4;"
	"call %[update];"
	"r1 = r10;"
	"r1 += -8;"
	"call bpf_iter_num_destroy;"
	"r0 = 0;"
	"exit;"
	:: [map]"i"(&s22_slot_map), [update]"i"(BPF_FUNC_map_update_elem) : "memory");
}

/* The same range at a variable offset that may reach the iterator. */
// vercheck: reject "invalid read from stack R2 var_off (0x0; 0x8)+16 size 16"
SEC("tc")
__naked int s22_helper_reads_iter_var(void)
{
	asm volatile (
	"r6 = r1;"
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 4;"
	"call bpf_iter_num_new;"
	"r7 = *(u32 *)(r6 + 0);"
	"r7 &= 8;"
	"r1 = %[map] ll;"
	"r2 = r10;"
	"r2 += -24;"
	"r2 += r7;"
	"call %[lookup];"
	"r1 = r10;"
	"r1 += -8;"
	"call bpf_iter_num_destroy;"
	"r0 = 0;"
	"exit;"
	:: [map]"i"(&s22_slot_map), [lookup]"i"(BPF_FUNC_map_lookup_elem) : "memory");
}

/* Uninitialised bytes at a variable offset, no object among them: a
 * privileged program may read them. */
// vercheck: accept
SEC("tc")
__naked int s22_helper_reads_uninit_var(void)
{
	asm volatile (
	"r7 = *(u32 *)(r1 + 0);"
	"r7 &= 8;"
	"r1 = %[map] ll;"
	"r2 = r10;"
	"r2 += -24;"
	"r2 += r7;"
	"call %[lookup];"
	"r0 = 0;"
	"exit;"
	:: [map]"i"(&s22_slot_map), [lookup]"i"(BPF_FUNC_map_lookup_elem) : "memory");
}

char _license[] SEC("license") = "GPL";
