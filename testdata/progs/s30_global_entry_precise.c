// A precision walk that reaches a global function's entry with only its
// arguments wanted ends there (__mark_chain_precision's last_idx < 0
// case), after logging the step into the entry's checkpoint like any
// other: "mark_precise: frame0: last_idx -1 first_idx N subseq_idx N".
// A conditional jump as the function's first instruction is a checkpoint
// whose walk starts at the entry, when the main function has processed
// enough instructions and jumps since its last checkpoint (the counters
// that space checkpoints are not reset for a global function). Found from a level-2 log difference
// of mutation fuzzing.
#include "progs.h"
char _license[] SEC("license") = "GPL";

__noinline int s30_entry_branch(long x)
{
	asm volatile ("if %[x] >= 0 goto +0;" :: [x] "r"(x));
	return 0;
}

/* The branch is decided (an unsigned value is never below 0), so its
 * register is marked precise back to the entry. */
// vercheck: accept
SEC("tc")
int s30_global_entry_precise(struct __sk_buff *skb)
{
	long v = skb->len;

	v = v * 3 + skb->mark;
	v ^= skb->priority;
	return s30_entry_branch(v) & 1;
}

__noinline int s30_entry_two_args(long x, long y)
{
	int r = 1;

	asm volatile (
	"if %[y] > 7 goto +1;"
	"%[r] = 0;"
	"%[y] += %[x];"
	"if %[y] >= 0 goto +0;"
	: [r] "+r"(r), [y] "+r"(y) : [x] "r"(x));
	return r;
}

/* Both arguments wanted at the entry: the decided jump wants the sum. */
// vercheck: accept
SEC("tc")
int s30_global_entry_two_args(struct __sk_buff *skb)
{
	long v = skb->len;

	v = v * 3 + skb->mark;
	v ^= skb->priority;
	return s30_entry_two_args(v, skb->mark) & 1;
}
