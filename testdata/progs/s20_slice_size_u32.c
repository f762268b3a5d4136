#include "progs.h"

/* bpf_dynptr_slice's size is the register's 64-bit constant, kept in the
 * slice's 32-bit mem_size: with no buffer nothing checks it against a
 * buffer, and its high bits are dropped (0x100000008 is an 8-byte
 * slice). */

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

/* The truncated size's last byte is readable. */
// vercheck: accept
SEC("tc")
__naked int s20_slice_u32_size_ok(void)
{
	asm volatile(
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0x100000008 ll;"
	"call %[bpf_dynptr_slice];"
	"if r0 == 0 goto 1f;"
	"r0 = *(u8 *)(r0 + 7);"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice) : __clobber_all);
}

/* One byte past it is not. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
SEC("tc")
__naked int s20_slice_u32_size_past(void)
{
	asm volatile(
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0x100000008 ll;"
	"call %[bpf_dynptr_slice];"
	"if r0 == 0 goto 1f;"
	"r0 = *(u8 *)(r0 + 8);"
	"1: r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice) : __clobber_all);
}

/* The asm-only kfuncs need a C use for their BTF. */
// vercheck: accept
SEC("tc")
int s20_slice_c_use(struct __sk_buff *skb)
{
	struct bpf_dynptr p;
	__u8 *s;

	bpf_dynptr_from_skb(skb, 0, &p);
	s = bpf_dynptr_slice(&p, 0, NULL, 1);
	return s ? *s : 0;
}

char _license[] SEC("license") = "GPL";
