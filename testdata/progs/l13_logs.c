#include "progs.h"

/* Log-only behaviours of the kernel (session 13): messages without a
 * newline, the argument check of static functions, the stack liveness
 * lines of dynptrs and iterators. TestLogsMatchKernel compares the logs. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} l13_array SEC(".maps");

/* "expected prog array map for tail call" has no newline: the stats
 * trailer follows on its line. */
// vercheck: reject "expected prog array map for tail call"
SEC("socket")
__naked int l13_tail_call_array(void)
{
	asm volatile(
		"r2 = %[l13_array] ll;"
		"r3 = 0;"
		"call %[bpf_tail_call];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(l13_array), __imm(bpf_tail_call)
		: __clobber_all);
}

/* A static function whose BTF says it takes an int, called with the
 * context: the kernel logs "R1 is not a scalar" at the first call only
 * (the function is unreliable since) and goes on. */
static __noinline __attribute__((used)) int l13_twice(int v)
{
	return v * 2;
}

// vercheck: accept
SEC("socket")
__naked int l13_static_arg_mismatch(void)
{
	asm volatile(
		"call l13_twice;"
		"r1 = 1;"
		"call l13_twice;"
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

/* An iterator made and destroyed: both calls write its slot, so the
 * liveness lines show it written at both. */
struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

// vercheck: accept
SEC("socket")
int l13_iter_written(const void *ctx)
{
	struct bpf_iter_num it;
	int *v, sum = 0;

	bpf_iter_num_new(&it, 0, 3);
	while ((v = bpf_iter_num_next(&it)))
		sum += *v;
	bpf_iter_num_destroy(&it);
	return sum & 1;
}



/* bpf_strtol's result is MEM_UNINIT memory: the helper writes it whole,
 * byte by byte after the call (raw mode), so an uninitialised long is
 * fine, the slot is not read at the call and it shows as written data
 * (fp-16=mmmmmmmm) in the state after it. */
// vercheck: accept
SEC("socket")
int l13_strtol_uninit(const void *ctx)
{
	char buf[8] = "12";
	long res;

	if (bpf_strtol(buf, sizeof(buf), 0, &res) < 0)
		return 0;
	return res & 1;
}
char _license[] SEC("license") = "GPL";
