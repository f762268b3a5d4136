#include "progs.h"

/* Which stores end a dynptr slice. destroy_if_dynptr_stack_slot, run for
 * every store that touches a dynptr's slots, invalidates the slices of
 * that dynptr whose type is plain PTR_TO_MEM: those bpf_dynptr_data
 * returns. A kfunc slice (bpf_dynptr_slice(_rdwr)) is typed PTR_TO_MEM with
 * its dynptr's DYNPTR_TYPE_* flag and survives. A store over the stack
 * buffer a kfunc slice was given ends the slice on this machine's kernel
 * (stablefix.SliceBufferInvalidate, s12_slice_buffer.c), not on 6.18.0. */

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
				   __u32 buffer__szk) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[64]);
} sound_dynptr_slice_map SEC(".maps");

/* The well-formed use, which also gives the kfuncs their BTF. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int sound_dynptr_slice_ok(struct __sk_buff *ctx)
{
	struct bpf_dynptr d;
	char buf[8], *p;

	bpf_dynptr_from_skb(ctx, 0, &d);
	p = bpf_dynptr_slice(&d, 0, buf, sizeof(buf));
	if (p)
		return p[0];
	p = bpf_dynptr_slice_rdwr(&d, 0, buf, sizeof(buf));
	return p ? p[1] : 0;
}

/* Overwriting the stack buffer ends the slice, which may point there. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "R0 invalid mem access 'scalar'" without no-dynptr-slice-rdwr
// (A kernel that allows bpf_dynptr_slice_rdwr and lacks slice-buffer-invalidate: accept.)
SEC("tc")
__naked int sound_dynptr_slice_buffer_store(void)
{
	asm volatile(
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -16;"
		"call %[bpf_dynptr_from_skb];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = r10;"
		"r3 += -24;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice_rdwr];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u64 *)(r10 - 24) = r1;"
		"r1 = *(u8 *)(r0 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice_rdwr)
		: __clobber_all);
}

/* Local dynptrs over a map value, at fp-24. */
#define SOUND_LOCAL_DYNPTR \
	"r1 = 0;" \
	"*(u32 *)(r10 - 4) = r1;" \
	"r2 = r10;" \
	"r2 += -4;" \
	"r1 = %[sound_dynptr_slice_map] ll;" \
	"call %[bpf_map_lookup_elem];" \
	"if r0 == 0 goto l0_%=;" \
	"r1 = r0;" \
	"r2 = 64;" \
	"r3 = 0;" \
	"r4 = r10;" \
	"r4 += -24;" \
	"call %[bpf_dynptr_from_mem];"

/* A kfunc slice outlives a store over its dynptr. */
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
__naked int sound_dynptr_slice_kfunc_dynptr_store(void)
{
	asm volatile(
		SOUND_LOCAL_DYNPTR
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 0;"
		"r3 = 0;"
		"r4 = 8;"
		"call %[bpf_dynptr_slice_rdwr];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u64 *)(r10 - 24) = r1;"
		"r1 = *(u8 *)(r0 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_map_lookup_elem), __imm_addr(sound_dynptr_slice_map),
		  __imm(bpf_dynptr_from_mem), __imm(bpf_dynptr_slice_rdwr)
		: __clobber_all);
}

/* A bpf_dynptr_data slice does not: a one-byte store into the dynptr's
 * second slot turns it into a scalar. */
// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("tc")
__naked int sound_dynptr_slice_data_dynptr_store(void)
{
	asm volatile(
		SOUND_LOCAL_DYNPTR
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 0;"
		"r3 = 8;"
		"call %[bpf_dynptr_data];"
		"if r0 == 0 goto l0_%=;"
		"r1 = 0;"
		"*(u8 *)(r10 - 9) = r1;"
		"r1 = *(u8 *)(r0 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_map_lookup_elem), __imm_addr(sound_dynptr_slice_map),
		  __imm(bpf_dynptr_from_mem), __imm(bpf_dynptr_data)
		: __clobber_all);
}

/* ... nor a store at a variable offset that may reach the dynptr. */
// vercheck: reject "R6 invalid mem access 'scalar'"
SEC("tc")
__naked int sound_dynptr_slice_data_varoff_store(void)
{
	asm volatile(
		SOUND_LOCAL_DYNPTR
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 0;"
		"r3 = 8;"
		"call %[bpf_dynptr_data];"
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"call %[bpf_get_prandom_u32];"
		"r0 &= 8;"
		"r1 = r10;"
		"r1 += -32;"
		"r1 += r0;"
		"r2 = 0;"
		"*(u64 *)(r1 + 0) = r2;"
		"r1 = *(u8 *)(r6 + 0);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_map_lookup_elem), __imm_addr(sound_dynptr_slice_map),
		  __imm(bpf_dynptr_from_mem), __imm(bpf_dynptr_data), __imm(bpf_get_prandom_u32)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";
