/* A program the 6.18 kernel's verifier oopses on (never load it): the
 * map argument of bpf_wq_init is a map without special fields while the
 * workqueue lives in another map; check_kfunc_call reads that map's
 * record, an error pointer. vercheck must say unsupported with
 * ErrKernelFault, so that no comparison loads it.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c wq_oops.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym;

struct wq_elem {
	__u64 count;
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct wq_elem);
} wq_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} plain SEC(".maps");

SEC("tc")
int wq_init_plain_map(struct __sk_buff *skb)
{
	int key = 0;
	struct wq_elem *e = bpf_map_lookup_elem(&wq_array, &key);

	if (!e)
		return 0;
	return bpf_wq_init(&e->w, &plain, 0);
}

char _license[] SEC("license") = "GPL";
