#include "progs.h"

/* The workqueue kfuncs are in the kernel's common kfunc set
 * (common_btf_ids of kernel/bpf/helpers.c: every program type), not the
 * generic one. A program type outside the generic set reaches the
 * arguments' checks; vercheck said "calling kernel function bpf_wq_start
 * is not allowed" there (found as a message difference by the fuzzer's
 * past-error follow-ups: a kprobe whose workqueue map load was dropped).
 * A map with a workqueue stays refused in tracing programs, and a socket
 * filter may use one. */

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __ksym;

struct l9_wq_elem {
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct l9_wq_elem);
} l9_wq_array SEC(".maps");

/* A kprobe with no workqueue map: the argument is checked. */
// vercheck: reject "arg#0 doesn't point to a map value"
SEC("kprobe/do_nanosleep")
int l9_wq_start_kprobe(void *ctx)
{
	bpf_wq_start((struct bpf_wq *)ctx, 0);
	return 0;
}

/* A socket filter may own a workqueue. */
// vercheck: accept
SEC("socket")
int l9_wq_socket(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct l9_wq_elem *e = bpf_map_lookup_elem(&l9_wq_array, &key);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &l9_wq_array, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";
