#include "progs.h"

/* A NULL given to a kfunc's __opt buffer is marked precise on this
 * machine's kernel (stablefix.NullArgPrecise) only once the argument's kind
 * is known: when the size argument after it is no number, the buffer's
 * kind is refused first ("must point to scalar") and no precision walk is
 * logged before it (bit-flip fuzzing with -compare-logs: vercheck marked
 * the NULL first). */
char _license[] SEC("license") = "GPL";
extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

/* The size register was clobbered by the call before. */
// vercheck: reject "arg#2 pointer type UNKNOWN  must point to scalar, or struct with scalar"
SEC("tc")
__naked int s29_opt_null_size_uninit(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 0;"
	"call %[bpf_dynptr_slice];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
	: __clobber_all);
}

/* The size is a stack pointer. */
// vercheck: reject "arg#2 pointer type UNKNOWN  must point to scalar, or struct with scalar"
SEC("tc")
__naked int s29_opt_null_size_ptr(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = r10;"
	"call %[bpf_dynptr_slice];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
	: __clobber_all);
}

/* A NULL buffer of a known size: both marked precise, the buffer first. */
// vercheck: accept
SEC("tc")
__naked int s29_opt_null_sized(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = r10;"
	"r3 += -16;"
	"call %[bpf_dynptr_from_skb];"
	"r1 = r10;"
	"r1 += -16;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 2;"
	"call %[bpf_dynptr_slice];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_dynptr_from_skb), __imm(bpf_dynptr_slice)
	: __clobber_all);
}

/* In C, which also gives the object the kfuncs' BTF. */
// vercheck: accept
SEC("tc")
int s29_opt_buffer_c(struct __sk_buff *skb)
{
	struct bpf_dynptr p;
	__u8 buf[2], *s;

	if (bpf_dynptr_from_skb(skb, 0, &p))
		return 0;
	s = bpf_dynptr_slice(&p, 0, buf, sizeof(buf));
	return s ? *s : 0;
}
