// Calls of an iterator's next after it has returned NULL: the iterator is
// drained and stays so. At a next call, is_state_visited prunes against
// the same path's earlier iteration only when the states compare equal
// (RANGE_WITHIN) and the current iterator is active; a drained one is a
// miss whatever the comparison says, so each re-poll of a drained iterator
// adds a state that no earlier one prunes. vercheck asks the iterator
// first and skips the comparison (the same figures: a re-polling loop of
// 1M instructions took 9 s before, 2 s after, the kernel 3-4 s), and its
// profile names the reason ("iter_inactive"). Found as a slow mutant of
// kf_iter_task_all in a fuzzing run.
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

/* Two elements, then five more calls that each return NULL. */
// vercheck: accept
SEC("socket")
int s31_iter_repoll(struct __sk_buff *skb)
{
	struct bpf_iter_num it;
	int n = 0, *v;

	bpf_iter_num_new(&it, 0, 2);
	while ((v = bpf_iter_num_next(&it)))
		n += *v;
	for (int i = 0; i < 5; i++)
		if (!bpf_iter_num_next(&it))
			n++;
	bpf_iter_num_destroy(&it);
	return n & 1;
}

/* A re-poll loop that a drained iterator alone would never leave (next
 * keeps returning NULL), bounded by a counter: 40 states at the next call,
 * none of which prunes a later one. */
// vercheck: accept
SEC("socket")
int s31_iter_repoll_counted(struct __sk_buff *skb)
{
	struct bpf_iter_num it;
	int n = 0;

	bpf_iter_num_new(&it, 0, 1);
	bpf_iter_num_next(&it);
	while (n < 40 && !bpf_iter_num_next(&it))
		n++;
	bpf_iter_num_destroy(&it);
	return n & 1;
}
