#include "progs.h"

/* Programs whose logs the kernel's level-2 log caught vercheck printing
 * differently (internal/logdiff, vercheck-mutate -compare-logs). */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} l11_rb SEC(".maps");

/* Two ringbuf records left reserved: check_reference_leak names each
 * before "would lead to reference leak". */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
__naked int l11_leak_two(void)
{
	asm volatile(
	"r1 = %[l11_rb] ll;"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"r1 = %[l11_rb] ll;"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 2f;"
	"r0 = 0;"
	"exit;"
	"2:"
	"r1 = r6;"
	"r2 = 0;"
	"call %[bpf_ringbuf_discard];"
	"1:"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(l11_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_discard)
	: __clobber_all);
}

/* A global function's memory argument of 4294967292 bytes: check_mem_reg
 * refuses sizes beyond S32_MAX before it looks at the memory. */
__noinline __weak int l11_huge_arg(int (*p)[0x3fffffff])
{
	return p ? (*p)[1] : 0;
}

// vercheck: reject "Caller passes invalid args into func#1 ('l11_huge_arg')"
SEC("tc")
int l11_huge_mem_arg(struct __sk_buff *skb)
{
	int (*p)[0x3fffffff];
	int tiny = 42;

	p = (void *)&tiny;
	return l11_huge_arg(p) + tiny;
}

/* bpf_loop with a constant count of 1: after the one callback round the
 * kernel's level-2 log says the iteration limit is reached. */
static int l11_cb(__u32 i, void *ctx)
{
	return 0;
}

// vercheck: accept
SEC("tc")
int l11_loop_limit_log(struct __sk_buff *skb)
{
	bpf_loop(1, l11_cb, 0, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
