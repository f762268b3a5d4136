#include "progs.h"

/* Open-coded iterators. The installed libbpf headers predate them, so the
 * iterator structs (with the kernel's layouts) and the kfuncs are declared
 * here. */
struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

struct bpf_iter_bits {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;
extern int bpf_iter_bits_new(struct bpf_iter_bits *it, const __u64 *unsafe_ptr__ign, __u32 nr_words) __ksym;
extern int *bpf_iter_bits_next(struct bpf_iter_bits *it) __ksym;
extern void bpf_iter_bits_destroy(struct bpf_iter_bits *it) __ksym;

/* Sums the numbers 0..99: the loop converges after two iterations, since
 * the sum is never needed precisely. */
// vercheck: accept
SEC("socket")
int iter_num_sum(struct __sk_buff *skb)
{
	struct bpf_iter_num it;
	int *v, sum = 0;

	bpf_iter_num_new(&it, 0, 100);
	while ((v = bpf_iter_num_next(&it)))
		sum += *v;
	bpf_iter_num_destroy(&it);
	return sum & 1;
}

/* Uses the iterator's value to index a stack array: the bound check makes
 * the value precise, but the loop still converges. */
// vercheck: accept
SEC("socket")
int iter_num_index(struct __sk_buff *skb)
{
	struct bpf_iter_num it;
	__u8 buf[16] = {};
	int *v, sum = 0;

	bpf_iter_num_new(&it, 0, 16);
	while ((v = bpf_iter_num_next(&it))) {
		unsigned int i = *v;

		if (i < sizeof(buf))
			sum += buf[i];
	}
	bpf_iter_num_destroy(&it);
	return sum & 1;
}

/* Forgets to destroy the iterator: its reference leaks. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("socket")
int iter_num_leak(struct __sk_buff *skb)
{
	struct bpf_iter_num it;
	int *v, sum = 0;

	bpf_iter_num_new(&it, 0, 10);
	while ((v = bpf_iter_num_next(&it)))
		sum += *v;
	return sum & 1;
}

/* Dereferences next's result without checking it for NULL: the drained
 * path, explored first, has r0 = 0. */
// vercheck: reject "R0 invalid mem access 'scalar'"
SEC("socket")
int iter_num_null_deref(struct __sk_buff *skb)
{
	struct bpf_iter_num it;
	int r;

	bpf_iter_num_new(&it, 0, 10);
	r = *(volatile int *)bpf_iter_num_next(&it);
	bpf_iter_num_destroy(&it);
	return r & 1;
}

/* Calls next on stack that holds no iterator. */
// vercheck: reject "expected an initialized iter_num as arg #0"
SEC("socket")
__naked int iter_num_next_uninit(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_next];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_iter_num_next)
	: __clobber_all);
}

/* Constructs an iterator twice in the same slot. */
// vercheck: reject "expected uninitialized iter_num as arg #0"
SEC("socket")
__naked int iter_num_double_new(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 10;"
	"call %[bpf_iter_num_new];"
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 10;"
	"call %[bpf_iter_num_new];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_iter_num_new)
	: __clobber_all);
}

/* Keeps next's element pointer past destroy: destroy releases it. */
// vercheck: reject "invalid mem access 'scalar'"
SEC("socket")
__naked int iter_num_use_after_destroy(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 10;"
	"call %[bpf_iter_num_new];"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_next];"
	"if r0 == 0 goto l0_%=;"
	"r6 = r0;"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_destroy];"
	"r0 = *(u32 *)(r6 + 0);"
	"exit;"
"l0_%=:"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_destroy];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_iter_num_new), __imm(bpf_iter_num_next), __imm(bpf_iter_num_destroy)
	: __clobber_all);
}

/* Overwrites the iterator's slot with a store, then destroys it. */
// vercheck: reject "expected an initialized iter_num as arg #0"
SEC("socket")
__naked int iter_num_clobbered(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 0;"
	"r3 = 10;"
	"call %[bpf_iter_num_new];"
	"*(u64 *)(r10 - 8) = r0;"
	"r1 = r10;"
	"r1 += -8;"
	"call %[bpf_iter_num_destroy];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_iter_num_new), __imm(bpf_iter_num_destroy)
	: __clobber_all);
}

/* Counts the bits set in a 64-bit mask with a two-slot bits iterator. */
// vercheck: accept
SEC("socket")
int iter_bits_count(struct __sk_buff *skb)
{
	struct bpf_iter_bits it;
	__u64 mask = skb->len;
	int *bit, n = 0;

	bpf_iter_bits_new(&it, &mask, 1);
	while ((bit = bpf_iter_bits_next(&it)))
		n++;
	bpf_iter_bits_destroy(&it);
	return n & 1;
}

/* Two nested number iterators. */
// vercheck: accept
SEC("socket")
int iter_num_nested(struct __sk_buff *skb)
{
	struct bpf_iter_num outer, inner;
	int *i, *j, sum = 0;

	bpf_iter_num_new(&outer, 0, 4);
	while ((i = bpf_iter_num_next(&outer))) {
		bpf_iter_num_new(&inner, 0, 4);
		while ((j = bpf_iter_num_next(&inner)))
			sum += *i * *j;
		bpf_iter_num_destroy(&inner);
	}
	bpf_iter_num_destroy(&outer);
	return sum & 1;
}

char _license[] SEC("license") = "GPL";
