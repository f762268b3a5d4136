/* The task_work form of wq_oops.c (never load it): the map argument of
 * bpf_task_work_schedule_signal_impl is a map without special fields while
 * the task_work lives in another map; check_kfunc_args reads that map's
 * record (task_work_off), an error pointer. vercheck must say unsupported
 * with ErrKernelFault.
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I/usr/include/x86_64-linux-gnu -c tw_oops.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_task_work {
	__u64 __opaque;
} __attribute__((aligned(8)));

struct task_struct {
	int pid;
};

struct bpf_map {
	int id;
};

extern int bpf_task_work_schedule_signal_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map,
					      int (*callback)(struct bpf_map *map, void *key, void *value),
					      void *aux__prog) __ksym;

struct tw_elem {
	__u64 count;
	struct bpf_task_work tw;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct tw_elem);
} tw_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} plain SEC(".maps");

static struct task_struct *(*current_task_btf)(void) = (void *)158;

static int tw_cb(struct bpf_map *map, void *key, void *value)
{
	return 0;
}

SEC("tc")
int tw_plain_map(struct __sk_buff *skb)
{
	int key = 0;
	struct tw_elem *e = bpf_map_lookup_elem(&tw_array, &key);

	if (!e)
		return 0;
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &e->tw, &plain, tw_cb, 0);
}

char _license[] SEC("license") = "GPL";
