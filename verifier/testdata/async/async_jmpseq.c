#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Registering a timer callback when 8192 branches are already pending: the
 * callback's path is the 8193rd, and push_async_cb refuses it with its own
 * wording of the jump-sequence limit ("... too complex for async cb."), and
 * fails the load with EFAULT (which is why this program is not one of
 * testdata/progs: the loader there keeps no log of an EFAULT). Live 6.18.44:
 * that message, 8206 insns processed, 1025 states.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c async_jmpseq.c; llvm-strip-19 -g */

struct au10_timer_val {
	__u64 hits;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct au10_timer_val);
} au10_seq_map SEC(".maps");

static __attribute__((naked, noinline, used)) int au10_seq_cb(void)
{
	asm volatile (
	"r0 = 0;"
	"exit;"
	::: "memory");
}

SEC("tc")
__attribute__((naked)) int au10_async_jmpseq(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[au10_seq_map] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 2f;"
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"r7 = r0;"
	".set au10_k, 1;"
	".rept 8192;"
	"if r7 == au10_k goto 2f;"
	".set au10_k, au10_k + 1;"
	".endr;"
	"r1 = r6;"
	"r1 += 8;"
	"r2 = au10_seq_cb ll;"
	"call %[bpf_timer_set_callback];"
"2:"	"r0 = 0;"
	"exit;"
	:: [au10_seq_map]"i"(&au10_seq_map), [bpf_map_lookup_elem]"i"(bpf_map_lookup_elem),
	   [bpf_get_prandom_u32]"i"(bpf_get_prandom_u32),
	   [bpf_timer_set_callback]"i"(bpf_timer_set_callback) : "memory");
}

char _license[] SEC("license") = "GPL";
