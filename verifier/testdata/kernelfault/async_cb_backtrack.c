/* A program the 6.18 kernel's verifier WARNs on (never load it): in a
 * timer callback, before its first checkpoint, a scalar derived from the
 * callback's r3 (a sign-extending move of the map value pointer) is made
 * precise (it is added to a pointer). push_async_cb leaves the callback's
 * state with first_insn_idx 0, so the precision walk does not stop at the
 * callback's first instruction: its jump history leads back to the
 * bpf_timer_set_callback call that registered it, where r3 is still wanted,
 * and backtrack_insn reports "verifier bug: backtracking call unexpected
 * regs 8" with a kernel warning (EFAULT). Found by the mutation fuzzer
 * from testdata/progs/au10_async_reenter.c (seed 1, mutant 3905).
 * The second program asks the same precision at the callback's return (its
 * r0 is a 32-bit copy of the key pointer): the kernel fails there on the
 * walk, before its return-range check would refuse r0.
 * vercheck must say unsupported with ErrKernelFault.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c async_cb_backtrack.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct au10_timer_val {
	__u64 hits;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct au10_timer_val);
} au10_tmap SEC(".maps");

static __attribute__((naked, noinline, used)) int au10_tcb(void)
{
	asm volatile (
	"r0 = (s8)r3;"
	"r0 &= 8;"
	"r3 += r0;"
	"r0 = 0;"
	"exit;"
	::: "memory");
}

static __attribute__((naked, noinline, used)) int au10_tcb_ret(void)
{
	asm volatile (
	"w0 = w2;"
	"exit;"
	::: "memory");
}

SEC("tc")
__attribute__((naked)) int async_cb_backtrack_ret(void)
{
	asm volatile (
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[au10_tmap] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 != 0 goto 1f;"
	"exit;"
"1:"	"r1 = r0;"
	"r1 += 8;"
	"r2 = au10_tcb_ret ll;"
	"call %[bpf_timer_set_callback];"
	"r0 = 0;"
	"exit;"
	:: [au10_tmap]"i"(&au10_tmap), [bpf_map_lookup_elem]"i"(bpf_map_lookup_elem),
	   [bpf_timer_set_callback]"i"(bpf_timer_set_callback) : "memory");
}

SEC("tc")
__attribute__((naked)) int async_cb_backtrack(void)
{
	asm volatile (
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[au10_tmap] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 != 0 goto 1f;"
	"exit;"
"1:"	"r6 = r0;"
	"r1 = r6;"
	"r1 += 8;"
	"r2 = au10_tcb ll;"
	"call %[bpf_timer_set_callback];"
	"exit;"
	:: [au10_tmap]"i"(&au10_tmap), [bpf_map_lookup_elem]"i"(bpf_map_lookup_elem),
	   [bpf_timer_set_callback]"i"(bpf_timer_set_callback) : "memory");
}

char _license[] SEC("license") = "GPL";
