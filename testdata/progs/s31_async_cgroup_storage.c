// An asynchronous callback (a timer's, a workqueue's) set up by a program
// that uses cgroup local storage: this kernel build refuses the call
// ("async callback in a program with cgroup storage"). The callback runs
// later, outside the cgroup hook that gave the program its storage, where
// bpf_get_local_storage would read another cgroup's storage or none. The
// program uses the storage when any instruction names a cgroup storage
// map, reached or not (bpf_cgroup_storage_assign at load time). A
// synchronous callback (bpf_loop) is not concerned. A build rule, not in
// 6.18.0 (stablefix.AsyncCbCgroupStorage). Found as a false accept of
// mutation fuzzing (seed 20263105: a map reference of a mutant of
// s24_map_btf.c changed to a cgroup storage map).
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq,
				    int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__ign) __ksym;

struct s31_timer_elem {
	struct bpf_timer t;
};

struct s31_wq_elem {
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s31_timer_elem);
} s31_timers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s31_wq_elem);
} s31_wqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, __u64);
} s31_cg SEC(".maps");

static int s31_timer_cb(void *map, int *key, struct s31_timer_elem *v)
{
	return 0;
}

static int s31_wq_cb(void *map, int *key, void *v)
{
	return 0;
}

static int s31_loop_cb(__u32 i, void *ctx)
{
	return 0;
}

/* The storage counted, then a timer's callback. */
// vercheck: reject "async callback in a program with cgroup storage"
// vercheck: accept without async-cb-cgroup-storage
SEC("cgroup_skb/ingress")
int s31_storage_then_timer(struct __sk_buff *skb)
{
	__u64 *cnt = bpf_get_local_storage(&s31_cg, 0);
	int k = 0;
	struct s31_timer_elem *v;

	__sync_fetch_and_add(cnt, 1);
	v = bpf_map_lookup_elem(&s31_timers, &k);
	if (!v)
		return 1;
	bpf_timer_init(&v->t, &s31_timers, 1);
	bpf_timer_set_callback(&v->t, s31_timer_cb);
	return 1;
}

/* A workqueue's callback (sleepable, so refused without the rule too, by
 * the build's sleepable-callback check that follows it). */
// vercheck: reject "failed callback verification"
SEC("cgroup_skb/ingress")
int s31_storage_then_wq(struct __sk_buff *skb)
{
	__u64 *cnt = bpf_get_local_storage(&s31_cg, 0);
	int k = 0;
	struct s31_wq_elem *v;

	__sync_fetch_and_add(cnt, 1);
	v = bpf_map_lookup_elem(&s31_wqs, &k);
	if (!v)
		return 1;
	if (bpf_wq_init(&v->w, &s31_wqs, 0))
		return 1;
	bpf_wq_set_callback_impl(&v->w, s31_wq_cb, 0, 0);
	return 1;
}

/* The storage on a path that never runs still counts. */
// vercheck: reject "async callback in a program with cgroup storage"
// vercheck: accept without async-cb-cgroup-storage
SEC("cgroup_skb/ingress")
int s31_dead_storage_then_timer(struct __sk_buff *skb)
{
	int k = 0;
	struct s31_timer_elem *v;

	if (skb->len > 0xffff0000) {
		__u64 *cnt = bpf_get_local_storage(&s31_cg, 0);

		__sync_fetch_and_add(cnt, 1);
	}
	v = bpf_map_lookup_elem(&s31_timers, &k);
	if (!v)
		return 1;
	bpf_timer_init(&v->t, &s31_timers, 1);
	bpf_timer_set_callback(&v->t, s31_timer_cb);
	return 1;
}

/* A synchronous callback is not concerned. */
// vercheck: accept
SEC("cgroup_skb/ingress")
int s31_storage_then_loop(struct __sk_buff *skb)
{
	__u64 *cnt = bpf_get_local_storage(&s31_cg, 0);

	__sync_fetch_and_add(cnt, 1);
	bpf_loop(4, s31_loop_cb, 0, 0);
	return 1;
}

/* Without the storage the timer is fine. */
// vercheck: accept
SEC("cgroup_skb/ingress")
int s31_timer_alone(struct __sk_buff *skb)
{
	int k = 0;
	struct s31_timer_elem *v;

	v = bpf_map_lookup_elem(&s31_timers, &k);
	if (!v)
		return 1;
	bpf_timer_init(&v->t, &s31_timers, 1);
	bpf_timer_set_callback(&v->t, s31_timer_cb);
	return 1;
}
