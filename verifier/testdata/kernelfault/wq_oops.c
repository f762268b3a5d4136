/* Programs the 6.18 kernel's verifier oopses on (never load them): the
 * map argument of bpf_wq_init is a map without special fields while the
 * workqueue lives in another map, and check_kfunc_call reads that map's
 * record, an error pointer; or it is no map at all but a register whose
 * map_ptr field holds something else (a packet pointer's range, a
 * function's subprogram number, a BTF pointer's btf), which
 * check_kfunc_args reads as a map. vercheck must say unsupported with
 * ErrKernelFault, so that no comparison loads them.
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

/* A checked packet pointer: its range (8) is read as a map pointer. */
SEC("tc")
int wq_init_packet(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	int key = 0;
	struct wq_elem *e;

	if (data + 8 > end)
		return 0;
	e = bpf_map_lookup_elem(&wq_array, &key);
	if (!e)
		return 0;
	return bpf_wq_init(&e->w, data, 0);
}

static int wq_cb(void *map, int *key, void *value)
{
	return 0;
}

/* A function pointer (as after bpf_wq_set_callback_impl's arguments): its
 * subprogram number, 1, is read as a map pointer. The fuzzer's kfunc
 * operator made this from a bpf_wq_set_callback_impl call twice. */
SEC("tc")
int wq_init_func(struct __sk_buff *skb)
{
	int key = 0;
	struct wq_elem *e = bpf_map_lookup_elem(&wq_array, &key);

	if (!e)
		return 0;
	return bpf_wq_init(&e->w, (void *)wq_cb, 0);
}

/* A trusted task pointer: its btf is read as a map. */
SEC("tc")
int wq_init_task(struct __sk_buff *skb)
{
	int key = 0;
	struct wq_elem *e = bpf_map_lookup_elem(&wq_array, &key);

	if (!e)
		return 0;
	return bpf_wq_init(&e->w, bpf_get_current_task_btf(), 0);
}

char _license[] SEC("license") = "GPL";
