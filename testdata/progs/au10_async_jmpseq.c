#include "progs.h"

/* Registering a timer callback when 8192 branches are already pending: the
 * callback's path is the 8193rd, and push_async_cb refuses it with its own
 * wording of the jump-sequence limit ("... too complex for async cb."). */

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

static __naked __attribute__((noinline, used)) int au10_seq_cb(void)
{
	asm volatile (
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: reject "The sequence of 8193 jumps is too complex for async cb."
SEC("tc")
__naked int au10_async_jmpseq(void)
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
	:: __imm_addr(au10_seq_map), __imm(bpf_map_lookup_elem), __imm(bpf_get_prandom_u32),
	   __imm(bpf_timer_set_callback) : __clobber_all);
}

char _license[] SEC("license") = "GPL";
