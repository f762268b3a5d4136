#include "progs.h"

/* The kernel's numbers iterator: one opaque 8-byte stack slot. The installed
 * UAPI headers predate it, so it is declared here with the kernel's layout. */
struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;

/* Reads, as plain data, the stack slot that holds a numbers iterator. Even a
 * privileged program may not read such a slot: it is neither written data
 * nor uninitialised. */
// vercheck: reject "invalid read from stack off -8+0 size 8"
SEC("socket")
int stack_iter_read(struct __sk_buff *skb)
{
	struct bpf_iter_num it;

	bpf_iter_num_new(&it, 0, 10);
	return *(volatile __u64 *)&it.__opaque[0];
}

char _license[] SEC("license") = "GPL";
