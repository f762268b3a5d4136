#include "progs.h"

/* The constant size of a kfunc's __szk parameter (bpf_dynptr_slice's
 * buffer__szk, the size of the slice it returns) is marked precise on this
 * machine's kernel (6.18.44-fc-v1045; neither 6.18.0 nor 7.2 do): a path
 * asking for a smaller slice is not pruned against one that asked for a
 * larger (stablefix.SzkPrecise). */
char _license[] SEC("license") = "GPL";
extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

/* Size 8 on the path walked first, 4 on the other; byte 6 is read. */
// vercheck: reject "R0 min value is outside of the allowed memory range"
// vercheck: accept without szk-precise
SEC("tc")
__naked int g12_szk_smaller_pruned(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"call %[bpf_get_prandom_u32];"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 8;"
	"if r0 != 0 goto 1f;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"r5 = 0;"
	"goto 2f;"
	"1:"
	"r4 = 4;"
	"2:"
	"call %[bpf_dynptr_slice];"
	"if r0 == 0 goto 3f;"
	"r0 = *(u8 *)(r0 + 6);"
	"3:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
	: __clobber_all);
}

/* In C, which also gives the object the kfuncs' BTF. */
// vercheck: accept
SEC("tc")
int g12_szk_c(struct __sk_buff *skb)
{
	struct bpf_dynptr p;
	__u8 *s;

	if (bpf_dynptr_from_skb(skb, 0, &p))
		return 0;
	s = bpf_dynptr_slice(&p, 0, 0, 1);
	return s ? *s : 0;
}
